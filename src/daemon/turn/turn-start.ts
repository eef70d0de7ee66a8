/**
 * What a turn's start commits, as plain functions over the session's state: the entries (open
 * calls closed, then one entry per input), the inputs with the log positions that delivered
 * them, the row writes, and the receipts its inputs show once the start (or the end) is durable.
 * The scheduler (turn-scheduler.ts) commits and announces them.
 */
import type { InputIntent, InputReceipt, TurnState } from "../../api/inputs.js";
import type { LogEntry } from "../../log/entries.js";
import type { PlacedEntry } from "../../log/session-writer.js";
import { type Item, type ToolCallItem, userMessage } from "../../model/items.js";
import { timeOrderedId } from "../../model/time-ordered-id.js";
import type { ApprovalGate } from "../approval/approval-gate.js";
import { taskToolName } from "../approval/approval-policy.js";
import { closeOpenCalls } from "../session/open-tool-calls.js";
import type { SessionLogWriter } from "../session/session-log-writer.js";
import { deliveredReceipt, type InputRow } from "../storage/inputs-table.js";
import type { RowWrites } from "../storage/session-storage.js";

/** An input a turn took: its row as it was before, with the log position of the entry that delivered it. */
export interface DeliveredInput {
  row: InputRow;
  transcriptPosition: number | null;
}

/** A turn whose start is durable, to be announced and run. */
export interface StartedTurn {
  turnId: string;
  inputIds: readonly string[];
  /** The entries its start committed. */
  entries: readonly LogEntry[];
  /** When it started (ms), as its row says. */
  startedAt: number;
  /** Its inputs as they were before it took them, each with the log position that delivered it. */
  delivered: readonly DeliveredInput[];
  /** The log position of its first entry, when it is known. */
  firstPosition?: number;
}

/** What a turn's start reads of the session's approvals. */
export type StartGate = Pick<ApprovalGate, "waiting" | "closingEntries">;

/** What a turn's start is made of. */
export interface TurnStartSource {
  turnId: string;
  /** The start's time (ms). */
  now: number;
  /** The inputs it delivers, in order. */
  pending: readonly InputRow[];
  gate: StartGate;
  /** The session's history before the start. */
  history: readonly Item[];
}

/** A turn's start, ready to commit. */
export interface TurnStart {
  started: StartedTurn;
  entries: LogEntry[];
  writes: RowWrites;
}

/** The start of a new turn delivering `pending` (in order), at `now`, after the session's log as it is. */
export function planTurnStart(
  log: Pick<SessionLogWriter, "state" | "placed">,
  gate: StartGate,
  pending: readonly InputRow[],
  now: number,
): TurnStart {
  const turnId = timeOrderedId();
  const entries = turnStartEntries({ turnId, now, pending, gate, history: log.state.history });
  const placed = log.placed(entries);
  const started: StartedTurn = {
    turnId,
    inputIds: pending.map((input) => input.id),
    entries,
    startedAt: now,
    delivered: deliveredInputs(pending, entries, placed),
  };
  const first = placed[0];
  if (first !== undefined) started.firstPosition = first.position;
  return { started, entries, writes: turnStartWrites(started) };
}

/** The entries a turn's start commits: open calls closed (unless it waits for their answers), then one entry per input. */
export function turnStartEntries({ turnId, now, pending, gate, history }: TurnStartSource): LogEntry[] {
  const entries: LogEntry[] = [];
  if (pending.length > 0 || !gate.waiting) {
    // Defensive: a turn never starts with an unanswered call (the loop would run it again).
    // Calls that wait for an answer are denied; a turn without inputs waits for them instead.
    const closing = gate.closingEntries("turn_end", turnId);
    if (closing.length > 0) entries.push(...closing);
    // A turn that goes on with one a restart cut runs its `task` calls again (turn-recovery.ts).
    const rerun = (call: ToolCallItem) => pending.length === 0 && call.name === taskToolName;
    const stale = closeOpenCalls(history, "failed", undefined, rerun);
    if (closing.length === 0 && stale.length > 0) {
      entries.push({ kind: "tool_results", ts: now, items: stale, turn_id: turnId });
    }
  }
  for (const input of pending) entries.push(inputEntry(input, turnId, now));
  return entries;
}

/**
 * The start's inputs, each with the log position of its entry: `entries` are the start's (its
 * inputs' entries last, see `turnStartEntries`), `placed` the same as the log would place them.
 */
export function deliveredInputs(
  pending: readonly InputRow[],
  entries: readonly LogEntry[],
  placed: readonly PlacedEntry[],
): DeliveredInput[] {
  const firstInputEntry = entries.length - pending.length;
  return pending.map((row, i) => ({
    row,
    transcriptPosition: placed[firstInputEntry + i]?.position ?? null,
  }));
}

/** The row writes of a turn's start: the turn row, and its inputs marked committed at their positions. */
export function turnStartWrites(started: StartedTurn): RowWrites {
  const { turnId, inputIds, startedAt, delivered } = started;
  return {
    startTurn: { id: turnId, inputIds, startedAt },
    committedInputs: {
      turnId,
      inputs: delivered.map(({ row, transcriptPosition }) => ({ id: row.id, transcriptPosition })),
    },
  };
}

/** The receipts of a started turn's inputs with the turn in `state` (ended at `endedAt`, if it did). */
export function receiptsOf(started: StartedTurn, state: TurnState, endedAt: number | null): InputReceipt[] {
  const turn = { id: started.turnId, state, startedAt: started.startedAt, endedAt };
  return started.delivered.map(({ row, transcriptPosition }) =>
    deliveredReceipt(row, transcriptPosition, turn),
  );
}

/** The log entry that delivers an input to the model. */
function inputEntry(input: InputRow, turnId: string, ts: number): LogEntry {
  const intent = input.intent as InputIntent;
  if (intent.kind === "message") {
    return { kind: "user_input", ts, item: userMessage(intent.text), turn_id: turnId, input_id: input.id };
  }
  return { kind: "continuation", ts, turn_id: turnId, input_id: input.id };
}
