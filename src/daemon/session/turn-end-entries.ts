/**
 * What a turn's end commits to the log, as plain functions over the session's state: for a turn
 * that ended, its open calls closed (unless it completed), `turn_end` and `run_outcome`; for a
 * turn a restart cut short, its open calls closed and a note telling the model. The scheduler
 * (turn-scheduler.ts) commits them with the turn row's end.
 */
import type { LogEntry } from "../../log/entries.js";
import { type Item, userMessage } from "../../model/items.js";
import type { ApprovalGate } from "./approval-gate.js";
import { closeOpenCalls, type OpenCallReason } from "./open-tool-calls.js";
import type { TurnEnding } from "./turn-run.js";

/** The note the model reads after a daemon restart cut a turn short. */
export const restartNoteText =
  "[Skein] The daemon restarted while this turn was running. Tool calls that were in flight are marked " +
  "interrupted with an unknown outcome; check their effects before retrying anything, then continue the task.";

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
}

/**
 * The entries a turn's end commits: unless it completed, the calls that wait for an answer
 * denied (or else its open calls closed), then `turn_end` and `run_outcome`.
 */
export function turnEndEntries({ turnId, ending, now, gate, history }: TurnEndSource): LogEntry[] {
  const entries: LogEntry[] = [];
  const reason: OpenCallReason = ending.state === "interrupted" ? "interrupted" : "failed";
  const closing =
    ending.state === "completed"
      ? []
      : gate.closingEntries(ending.state === "interrupted" ? "interrupt" : "turn_end", turnId);
  entries.push(...closing);
  const results = ending.state === "completed" || closing.length > 0 ? [] : closeOpenCalls(history, reason);
  if (results.length > 0) entries.push({ kind: "tool_results", ts: now, items: results, turn_id: turnId });
  entries.push({ kind: "turn_end", ts: now, turn_count: ending.requestCount });
  entries.push({ kind: "run_outcome", ts: now, outcome: ending.outcome, interrupted: ending.interrupted });
  return entries;
}

/** The entries that end a turn a restart cut short: its open calls closed ("outcome unknown"), then the restart note. */
export function abandonedTurnEntries(turnId: string, now: number, history: readonly Item[]): LogEntry[] {
  const results = closeOpenCalls(history, "daemon_restart");
  const entries: LogEntry[] = [];
  if (results.length > 0) entries.push({ kind: "tool_results", ts: now, items: results, turn_id: turnId });
  entries.push({
    kind: "note",
    ts: now,
    origin: "daemon_restart",
    item: userMessage(restartNoteText),
    turn_id: turnId,
  });
  return entries;
}
