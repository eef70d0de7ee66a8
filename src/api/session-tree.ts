/**
 * Sessions and the `task` children their agents run in, as `skein sessions` and the web UI show them: each
 * child right after its parent (indented by its depth), and each session's tokens counted with
 * its children's, recursively (the snapshot's `usage_total`, rebuilt from a listing).
 *
 * Boundary rule: pure; it reads only the summaries it is given. A fork (no `agent`) is not a
 * child here: its tokens are its own and it keeps its place in the listing.
 */
import type { SessionSummary } from "./session-snapshot.js";

/** Whether `session` is a `task` call's child (not a fork). */
function isTaskChild(session: SessionSummary): session is SessionSummary & { parent_id: string } {
  return session.agent !== null && session.parent_id !== null;
}

/** The `task` children of each session among `sessions`, in their order there. */
function childrenByParent(sessions: readonly SessionSummary[]): Map<string, SessionSummary[]> {
  const children = new Map<string, SessionSummary[]>();
  for (const session of sessions) {
    if (!isTaskChild(session)) continue;
    children.set(session.parent_id, [...(children.get(session.parent_id) ?? []), session]);
  }
  return children;
}

/**
 * `sessions` with each `task` child moved right after its parent (its own children after it),
 * and each row's depth (0 for a session whose parent is not listed); otherwise in their order.
 */
export function agentsBeneathParents(
  sessions: readonly SessionSummary[],
): { session: SessionSummary; depth: number }[] {
  const listed = new Set(sessions.map((session) => session.id));
  const children = childrenByParent(sessions);
  const rows: { session: SessionSummary; depth: number }[] = [];
  const placed = new Set<string>();
  const place = (session: SessionSummary, depth: number): void => {
    // A cycle cannot come from the daemon, but a listing is input: never loop on one.
    if (placed.has(session.id)) return;
    placed.add(session.id);
    rows.push({ session, depth });
    for (const child of children.get(session.id) ?? []) place(child, depth + 1);
  };
  for (const session of sessions) {
    if (isTaskChild(session) && listed.has(session.parent_id)) continue;
    place(session, 0);
  }
  // Children whose chain of parents loops (never from the daemon) still get a row.
  for (const session of sessions) place(session, 0);
  return rows;
}

/** Each listed session's total tokens with those of its `task` children, recursively. */
export function tokensWithAgents(all: readonly SessionSummary[]): Map<string, number> {
  const children = childrenByParent(all);
  const totals = new Map<string, number>();
  const total = (session: SessionSummary, seen: ReadonlySet<string>): number => {
    const known = totals.get(session.id);
    if (known !== undefined) return known;
    const path = new Set(seen).add(session.id);
    let sum = session.usage.total_tokens;
    for (const child of children.get(session.id) ?? []) if (!path.has(child.id)) sum += total(child, path);
    totals.set(session.id, sum);
    return sum;
  };
  for (const session of all) total(session, new Set());
  return totals;
}
