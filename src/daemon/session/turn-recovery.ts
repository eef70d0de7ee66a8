/**
 * Recovery of a turn a crash or a shutdown cut short (found `running` at the next start): it
 * ends `abandoned`, its open calls answered "outcome unknown" and a note telling the model;
 * the scheduler (turn-scheduler.ts) then starts a new turn.
 */
import type { LogEntry } from "../../log/entries.js";
import { type Item, userMessage } from "../../model/items.js";
import type { TurnRow } from "../storage/turns-table.js";
import type { InputQueue } from "./input-queue.js";
import { closeOpenCalls } from "./open-tool-calls.js";
import type { SessionLogWriter } from "./session-log-writer.js";
import type { SessionServices } from "./session-services.js";

/** The note the model reads after a daemon restart cut a turn short. */
export const restartNoteText =
  "[Skein] The daemon restarted while this turn was running. Tool calls that were in flight are marked " +
  "interrupted with an unknown outcome; check their effects before retrying anything, then continue the task.";

/** What ending an abandoned turn needs of its session. */
export interface RecoveryContext {
  sessionId: string;
  services: SessionServices;
  log: SessionLogWriter;
  inputs: InputQueue;
}

/**
 * Inside the mailbox: a turn a crash cut short becomes abandoned, with a note (a new turn runs
 * next). When calls of it were waiting for an answer (`waiting`), none of their batch had
 * started: they stay open, without a note (it would split the calls from their results), and
 * the new turn waits for the same answers.
 */
export async function endAbandonedTurn(ctx: RecoveryContext, turn: TurnRow, waiting: boolean): Promise<void> {
  const { log, services, sessionId, inputs } = ctx;
  if (waiting) {
    const now = services.now();
    await log.commit([], { endTurn: { id: turn.id, state: "abandoned", endedAt: now, error: null } });
    services.logger.info(
      { session: sessionId, turn: turn.id },
      "recovered a turn cut short by a restart while tool calls waited for approval",
    );
    await inputs.publish(turn.inputIds);
    return;
  }
  const now = services.now();
  const entries = abandonedTurnEntries(turn.id, now, log.state.history);
  await log.commit(entries, { endTurn: { id: turn.id, state: "abandoned", endedAt: now, error: null } });
  services.logger.info({ session: sessionId, turn: turn.id }, "recovered a turn cut short by a restart");
  await inputs.publish(turn.inputIds);
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
