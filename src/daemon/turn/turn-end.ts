/**
 * A turn's end: what it commits to the log, as a plain function over the session's state
 * (unless it completed, its open calls closed; then `turn_end` and `run_outcome`), and the
 * commit itself, with the turn row's end and its usage (turn-recovery.ts ends a turn a restart
 * cut short). The scheduler (turn-scheduler.ts) tells the clients and retries a refused end.
 */
import type { LogEntry } from "../../log/entries.js";
import type { Item } from "../../model/items.js";
import type { ApprovalGate, TurnPolicy } from "../approval/approval-gate.js";
import { knownResult } from "../approval/call-outcomes.js";
import { closeOpenCalls, type KnownResult, type OpenCallReason } from "../session/open-tool-calls.js";
import type { SessionPort } from "../session/session-port.js";
import { isStorageUnavailable, storageFailureText } from "../storage/storage-unavailable.js";
import { storageFailedEnding, type TurnEnding } from "./turn-ending.js";
import type { StartedTurn } from "./turn-start.js";

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
 * The entries a turn's end commits: an interrupted answer's streamed part (marked interrupted),
 * unless it completed, the calls that wait for an answer
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
  if (ending.partial !== undefined) {
    // What the interrupted answer had streamed (it holds no tool calls: nothing below closes it).
    entries.push({
      kind: "assistant_items",
      ts: now,
      items: [...ending.partial],
      turn_id: turnId,
      interrupted: true,
    });
  }
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
function nextLogPosition(
  log: { placed(entries: readonly LogEntry[]): { position: number }[] },
  now: number,
): number {
  return log.placed([{ kind: "turn_end", ts: now, turn_count: 0 }])[0]!.position;
}

/** How committing a turn's end went. */
export type TurnEndCommit =
  /** Logged, with the turn row's end, at `endedAt`. */
  | { kind: "logged"; endedAt: number }
  /** The log fails verification: nothing more is written; the turn ends in memory only. */
  | { kind: "corrupt" }
  /** Storage refused it: `ending` is what to write when it is tried again (`error`: why). */
  | { kind: "refused"; ending: TurnEnding; error: unknown };

/**
 * Inside the mailbox: commit the end of `turn` (the held answer first, if any), the turn row's
 * end and its usage. A refusal by the storage drops the held answer: as for any step that
 * cannot be written, the turn failed and its answer is not logged (its request not counted).
 */
export async function commitTurnEnd(
  port: SessionPort,
  gate: EndGate,
  turn: { id: string; policy: TurnPolicy | null },
  started: StartedTurn,
  ending: TurnEnding,
): Promise<TurnEndCommit> {
  const { log } = port;
  if (log.corrupt !== null) return { kind: "corrupt" };
  const now = port.now();
  const workspace = turn.policy?.workspace ?? null;
  const entries = turnEndEntries({
    turnId: turn.id,
    ending,
    now,
    gate,
    history: log.state.history,
    known: (call) => knownResult(call, log.state.approval_decisions, workspace),
    ...(started.firstPosition === undefined
      ? {}
      : { firstPosition: started.firstPosition, nextPosition: nextLogPosition(log, now) }),
  });
  try {
    await log.commit(entries, {
      endTurn: { id: turn.id, state: ending.state, endedAt: now, error: ending.error?.message ?? null },
      usage: ending.usage,
    });
  } catch (error) {
    if (log.corrupt !== null) return { kind: "corrupt" };
    if (!isStorageUnavailable(error)) throw error;
    const failed =
      log.dropHeld() && ending.state === "completed"
        ? storageFailedEnding(ending.requestCount - 1, ending.usage, storageFailureText(error))
        : ending;
    return { kind: "refused", ending: failed, error };
  }
  return { kind: "logged", endedAt: now };
}
