/**
 * The sessions whose `task` calls made a session (its parent, the parent's parent, …) with their
 * own budgets as their rows hold them now: each one's session budget counts this session's usage
 * too, so each applies to its requests (budget-check.ts). A fork is no child: the walk stops at a
 * session that no `task` call made.
 *
 * Boundary rule: reads only.
 */
import type { SessionStorage } from "../storage/session-storage.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { SessionBudget } from "./budget-check.js";

/** How deep the walk goes at most (task children nest a few levels; a cycle written into the database ends here). */
const maxDepth = 32;

/** `row`'s task ancestors, parent first, each with its own budget (none for a session no `task` call made). */
export async function taskAncestorBudgets(
  storage: Pick<SessionStorage, "getSession">,
  row: Pick<SessionRow, "parentId" | "task">,
): Promise<SessionBudget[]> {
  const ancestors: SessionBudget[] = [];
  let child = row;
  while (child.task !== null && child.parentId !== null && ancestors.length < maxDepth) {
    const parent = await storage.getSession(child.parentId);
    if (parent === null) break;
    ancestors.push({ sessionId: parent.id, own: parent.ownBudget });
    child = parent;
  }
  return ancestors;
}
