/**
 * Replay (collect-state.ts) of what approvals a log describes: the calls that wait for an answer
 * (`approval_requested`), the answers given (`approval_resolved`), and the model answers and
 * tool results that take a call out of waiting.
 *
 * Boundary rule: pure; it folds entries into the state in place, like the rest of replay.
 */
import type { Item } from "../model/items.js";
import type { LogEntry } from "./entries.js";
import type { RestoredState } from "./restored-state.js";

/**
 * A call waits for approval, unless it was answered or is waiting already (but a `retry` answer
 * gives way to an `unknown_outcome` request: the retried call was cut short again).
 */
export function applyApprovalRequested(
  state: RestoredState,
  entry: Extract<LogEntry, { kind: "approval_requested" }>,
): void {
  if (Object.hasOwn(state.approval_decisions, entry.call_id)) {
    const retried = state.approval_decisions[entry.call_id]!.decision === "retry";
    if (!retried || entry.rule.source !== "unknown_outcome") return;
    delete state.approval_decisions[entry.call_id];
  }
  if (state.pending_approvals.some((pending) => pending.call_id === entry.call_id)) return;
  state.pending_approvals.push({
    call_id: entry.call_id,
    tool: entry.tool,
    rule: { ...entry.rule },
    requested_at: entry.ts,
    turn_id: entry.turn_id ?? null,
  });
}

/** A call's approval is decided: no longer pending, its decision (and any rule) remembered. */
export function applyApprovalResolved(
  state: RestoredState,
  entry: Extract<LogEntry, { kind: "approval_resolved" }>,
): void {
  state.pending_approvals = state.pending_approvals.filter((pending) => pending.call_id !== entry.call_id);
  state.approval_decisions[entry.call_id] = {
    call_id: entry.call_id,
    decision: entry.decision,
    by: entry.by,
    client_id: entry.client_id ?? null,
    answered_by: entry.answered_by ?? null,
    answered_from: entry.answered_from ?? null,
    message: entry.message ?? null,
    remember: entry.remember === undefined ? null : { ...entry.remember },
    resolved_at: entry.ts,
  };
  if (entry.remember !== undefined) state.remembered_rules.push({ ...entry.remember });
}

/**
 * Some servers reuse call ids (`call_0` in every response): a new call with an id seen before
 * is a new call, and an answer given to the old one must never apply to it.
 */
export function forgetReusedCallIds(state: RestoredState, items: readonly Item[]): void {
  for (const item of items) {
    if (item.type !== "tool_call") continue;
    if (Object.hasOwn(state.approval_decisions, item.call_id)) delete state.approval_decisions[item.call_id];
    if (state.pending_approvals.some((pending) => pending.call_id === item.call_id)) {
      state.pending_approvals = state.pending_approvals.filter((pending) => pending.call_id !== item.call_id);
    }
  }
}

/** A call that got its result waits for nothing any more (e.g. closed when a turn stopped short). */
export function dropAnsweredApprovals(state: RestoredState, items: readonly Item[]): void {
  if (state.pending_approvals.length === 0) return;
  const answered = new Set<string>();
  for (const item of items) if (item.type === "tool_result") answered.add(item.call_id);
  state.pending_approvals = state.pending_approvals.filter((pending) => !answered.has(pending.call_id));
}
