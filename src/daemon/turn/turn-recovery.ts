/**
 * Recovery of a turn a crash or a shutdown cut short (found `running` at the next start). What
 * the log and the turn's row already say is kept: a call whose outcome the log tells (a denied
 * call, with the user's message) gets that result, and only the calls that may have run are
 * answered "outcome unknown" (or, when config.json's `onUnknownOutcome` says `ask` for the tool,
 * left waiting for a person's word: approval/unknown-outcome-requests.ts). A turn whose interrupt was acknowledged (the turn row's mark,
 * written before the 200) ends `interrupted`, as it would have without the crash; any other
 * ends `abandoned`, with a note telling the model, and the scheduler (turn-scheduler.ts) starts
 * a new turn. The row's usage totals get the requests the cut turn had made (cut-turn-usage.ts).
 */

import type { LogEntry } from "../../log/entries.js";
import type { RestoredState } from "../../log/restored-state.js";
import { type Item, type ToolCallItem, userMessage } from "../../model/items.js";
import { openToolCalls } from "../../model/open-tool-calls.js";
import type { UnknownOutcomePolicy } from "../../model/unknown-outcome.js";
import { waitingCallsClosed } from "../approval/approval-gate.js";
import { taskToolName } from "../approval/approval-policy.js";
import { knownResult } from "../approval/call-outcomes.js";
import { asksAboutUnknownOutcome, unknownOutcomeRequest } from "../approval/unknown-outcome-requests.js";
import type { InputQueue } from "../session/input-queue.js";
import { closeOpenCalls, type KnownResult } from "../session/open-tool-calls.js";
import type { SessionPort } from "../session/session-port.js";
import type { TurnRow } from "../storage/turns-table.js";
import { cutTurnUsage } from "./cut-turn-usage.js";

/** The note the model reads after a daemon restart cut a turn short. */
export const restartNoteText =
  "[Skein] The daemon restarted while this turn was running. Tool calls that were in flight and may have run " +
  "are marked with an unknown outcome; check their effects before retrying anything, then continue the task.";

/** The run outcome's message of a turn ended interrupted at recovery (the same as a live interrupt's). */
const interruptedOutcomeMessage = "Cancelled";

/** What recovery reads of the session's replayed log. */
export type RecoveryView = Pick<
  RestoredState,
  "history" | "pending_approvals" | "approval_decisions" | "request_count"
>;

/** The cut turn as its row tells it. */
export interface CutTurn {
  id: string;
  /** Whether an interrupt of it was acknowledged (its row's mark). */
  interruptRequested: boolean;
}

/**
 * How a cut turn ends: `abandoned`, followed by a new turn that goes on with it (and waits for
 * the same answers when calls waited), or `interrupted`, after which only queued inputs start a
 * turn.
 */
export interface TurnRecovery {
  state: "abandoned" | "interrupted";
  entries: LogEntry[];
  /** Whether a new turn goes on with the cut one. */
  continues: boolean;
}

/**
 * The recovery of `turn` over the session's replay `view` (`workspace`: the session's, for the
 * calls the path rule refused). Pure: the same history always recovers the same way.
 *
 * - Interrupted: the calls that wait are denied and every open call closed, as a live
 *   interrupt would (a denied call keeps its denial), then `turn_end` and `run_outcome`
 *   {interrupted: true}; no note, no new turn.
 * - Calls waited for an answer: none of their batch had started, so nothing is written; they
 *   stay open and the new turn waits for the same answers.
 * - `task` calls open (and not refused by the log), or calls whose outcome the log does not
 *   tell and whose tool `unknownOutcome` says `ask` for: a `task` call is run again by the new
 *   turn (a task is idempotent: daemon/task/), an asked call gets an `approval_requested` entry
 *   (source `unknown_outcome`) and the new turn waits for a person's `retry`, `skip` or `done`;
 *   both stay open. The other open calls get their known result or "outcome unknown", and no
 *   note comes between the calls and their results.
 * - Otherwise each open call gets its known result or "outcome unknown", then the restart note.
 */
export function recoverCutTurn(
  turn: CutTurn,
  view: RecoveryView,
  workspace: string | null,
  now: number,
  unknownOutcome?: UnknownOutcomePolicy,
): TurnRecovery {
  const known: KnownResult = (call) => knownResult(call, view.approval_decisions, workspace);
  if (turn.interruptRequested) {
    const entries = waitingCallsClosed(view, "interrupt", turn.id, now);
    if (entries.length === 0) {
      const results = closeOpenCalls(view.history, "interrupted", known);
      if (results.length > 0)
        entries.push({ kind: "tool_results", ts: now, items: results, turn_id: turn.id });
    }
    entries.push({ kind: "turn_end", ts: now, turn_count: view.request_count });
    entries.push({
      kind: "run_outcome",
      ts: now,
      outcome: { type: "error", message: interruptedOutcomeMessage },
      interrupted: true,
    });
    return { state: "interrupted", entries, continues: false };
  }
  if (view.pending_approvals.length > 0) return { state: "abandoned", entries: [], continues: true };
  const rerun = (call: ToolCallItem) => call.name === taskToolName && known(call) === null;
  const asked = (call: ToolCallItem) => asksAboutUnknownOutcome(unknownOutcome, call) && known(call) === null;
  const open = openToolCalls(view.history);
  if (open.some((call) => rerun(call) || asked(call))) {
    const results = closeOpenCalls(
      view.history,
      "daemon_restart",
      known,
      (call) => rerun(call) || asked(call),
    );
    const entries: LogEntry[] =
      results.length === 0 ? [] : [{ kind: "tool_results", ts: now, items: results, turn_id: turn.id }];
    for (const call of open.filter(asked))
      entries.push(unknownOutcomeRequest(call, unknownOutcome, now, turn.id));
    return { state: "abandoned", entries, continues: true };
  }
  return {
    state: "abandoned",
    entries: abandonedTurnEntries(turn.id, now, view.history, known),
    continues: true,
  };
}

/**
 * Inside the mailbox: end a cut turn as `recoverCutTurn` says (the scheduler then starts the
 * new turn when it `continues`); the entries it committed.
 */
export async function endCutTurn(
  port: SessionPort,
  inputs: InputQueue,
  turn: TurnRow,
  workspace: string,
  unknownOutcome?: UnknownOutcomePolicy,
): Promise<TurnRecovery> {
  const { log, sessionId } = port;
  const now = port.now();
  const recovery = recoverCutTurn(
    { id: turn.id, interruptRequested: turn.interruptRequestedAt !== null },
    log.state,
    workspace,
    now,
    unknownOutcome,
  );
  // The row gets the turn's usage with its end; this turn's end never came.
  const usage = await cutTurnUsage(log.historyLog(), turn.id);
  await log.commit(recovery.entries, {
    endTurn: { id: turn.id, state: recovery.state, endedAt: now, error: null },
    ...(Object.keys(usage).length === 0 ? {} : { usage }),
  });
  port.logger.info(
    { session_id: sessionId, run_id: turn.id, state: recovery.state },
    recovery.state === "interrupted"
      ? "recovered a turn interrupted before a restart cut it short"
      : "recovered a turn cut short by a restart",
  );
  await inputs.publish(turn.inputIds);
  return recovery;
}

/**
 * The entries that end a turn a restart cut short: its open calls closed (the result `known`
 * gives, else "outcome unknown"), then the restart note.
 */
export function abandonedTurnEntries(
  turnId: string,
  now: number,
  history: readonly Item[],
  known?: KnownResult,
): LogEntry[] {
  const results = closeOpenCalls(history, "daemon_restart", known);
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
