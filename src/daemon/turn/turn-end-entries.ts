/**
 * What a turn's end commits to the log, as a plain function over the session's state: unless
 * it completed, its open calls closed; then `turn_end` and `run_outcome`. The scheduler
 * (turn-scheduler.ts) commits them with the turn row's end (turn-recovery.ts ends a turn a
 * restart cut short).
 */
import type { LogEntry } from "../../log/entries.js";
import type { Item } from "../../model/items.js";
import type { ApprovalGate } from "../approval/approval-gate.js";
import { closeOpenCalls, type KnownResult, type OpenCallReason } from "../session/open-tool-calls.js";
import type { TurnEnding } from "./turn-run.js";

/** What a turn's end reads of the session's approvals. */
export type EndGate = Pick<ApprovalGate, "closingEntries">;

/** What a turn's end is made of. */
export interface TurnEndSource {
  turnId: string;
  ending: TurnEnding;
  /** The end's time (ms). */
  now: number;
  gate: EndGate;
  /** The session's history before the end. */
  history: readonly Item[];
  /** The result the log already implies for an open call (a denied one), if any. */
  known?: KnownResult;
  /** The log position of the turn's first entry (to exclude a refused turn), when known. */
  firstPosition?: number;
  /** The log position the first of the end's entries will take. */
  nextPosition?: number;
}

/**
 * The entries a turn's end commits: unless it completed, the calls that wait for an answer
 * denied (or else its open calls closed: a denied call with its denial, the others as of
 * unknown outcome), for a refused turn its exclusion from the context, then `turn_end` and
 * `run_outcome`.
 */
export function turnEndEntries({
  turnId,
  ending,
  now,
  gate,
  history,
  known,
  firstPosition,
  nextPosition,
}: TurnEndSource): LogEntry[] {
  const entries: LogEntry[] = [];
  const reason: OpenCallReason = ending.state === "interrupted" ? "interrupted" : "failed";
  const closing =
    ending.state === "completed"
      ? []
      : gate.closingEntries(ending.state === "interrupted" ? "interrupt" : "turn_end", turnId);
  entries.push(...closing);
  const results =
    ending.state === "completed" || closing.length > 0 ? [] : closeOpenCalls(history, reason, known);
  if (results.length > 0) entries.push({ kind: "tool_results", ts: now, items: results, turn_id: turnId });
  if (ending.refused !== undefined && firstPosition !== undefined && nextPosition !== undefined) {
    // The refused turn, up to the entry before this one, is not sent to the model again.
    entries.push({
      kind: "context_excluded",
      ts: now,
      from_position: firstPosition,
      to_position: nextPosition + entries.length - 1,
      reason: "refusal",
      detail: ending.refused.detail,
    });
  }
  entries.push({ kind: "turn_end", ts: now, turn_count: ending.requestCount });
  entries.push({ kind: "run_outcome", ts: now, outcome: ending.outcome, interrupted: ending.interrupted });
  return entries;
}

/** The position the next committed entry takes (after any held ones). */
export function nextLogPosition(
  log: { placed(entries: readonly LogEntry[]): { position: number }[] },
  now: number,
): number {
  return log.placed([{ kind: "turn_end", ts: now, turn_count: 0 }])[0]!.position;
}
