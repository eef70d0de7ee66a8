/**
 * The `inputs` table: a session's inputs, their FIFO queue (delivery by a turn, cancellation)
 * and their receipts. Admission (the idempotent insert and the input order it takes) is
 * input-admission.ts's.
 *
 * Boundary rule: each operation is a SQL program (sql-program.ts) that either backend runs in
 * its caller's transaction, plus a synchronous wrapper on a better-sqlite3 connection. An
 * input's identity is its id plus its intent (the canonical JSON of what the client asked for).
 */
import type {
  InputDelivery,
  InputReceipt,
  PendingInput as PendingInputJson,
  TurnState,
} from "../../api/inputs.js";
import type { JsonValue } from "../../model/json.js";
import { InputNotPendingError, InputUnknownError } from "../errors.js";
import type { DaemonDatabase } from "./database.js";
import { all, dialect, get, run, type SqlProgram } from "./sql-program.js";
import { runSqlite, runSqliteAtomic } from "./sqlite-runner.js";

export interface InputRow {
  id: string;
  session: string;
  kind: string;
  /** The intent as admitted (parsed back from its canonical JSON). */
  intent: JsonValue;
  clientId: string | null;
  /** The name of the token that sent it, and the address it came from (null: not recorded). */
  sentBy: string | null;
  sentFrom: string | null;
  /** ms since the epoch. */
  acceptedAt: number;
  acceptanceOrder: number;
  delivery: InputDelivery;
  transcriptPosition: number | null;
  turnId: string | null;
}

export interface NewInput {
  session: string;
  id: string;
  kind: string;
  /** What the client asked for, without fields that may differ between retries (e.g. client_id). */
  intent: JsonValue;
  clientId?: string | null;
  sentBy?: string | null;
  sentFrom?: string | null;
  acceptedAt: number;
}

/** Who sent an input: the client's own name for itself, the token's name, the address. */
export interface InputSource {
  clientId: string | null;
  sentBy: string | null;
  sentFrom: string | null;
}

export type Admission =
  /** The same input had been admitted before (an idempotent retry). */
  | { receipt: InputReceipt; created: false }
  | {
      receipt: InputReceipt;
      created: true;
      /** How many of the session's inputs were waiting before this one. */
      waitingBefore: number;
    };

/** One input delivered by a turn and the log position of the entry that delivered it. */
export interface InputCommit {
  id: string;
  transcriptPosition: number | null;
}

export interface InputRecord {
  id: string;
  session: string;
  kind: string;
  intent: string;
  client_id: string | null;
  sent_by: string | null;
  sent_from: string | null;
  accepted_at: number;
  acceptance_order: number;
  delivery: InputDelivery;
  transcript_position: number | null;
  turn_id: string | null;
}

interface ReceiptRecord extends InputRecord {
  turn_state: TurnState | null;
  turn_started_at: number | null;
  turn_ended_at: number | null;
}

const receiptSelect = `SELECT i.*, t.state AS turn_state, t.started_at AS turn_started_at, t.ended_at AS turn_ended_at
    FROM inputs AS i LEFT JOIN turns AS t ON t.id = i.turn_id`;

function rowOf(record: InputRecord): InputRow {
  return {
    id: record.id,
    session: record.session,
    kind: record.kind,
    intent: JSON.parse(record.intent) as JsonValue,
    clientId: record.client_id,
    sentBy: record.sent_by,
    sentFrom: record.sent_from,
    acceptedAt: record.accepted_at,
    acceptanceOrder: record.acceptance_order,
    delivery: record.delivery,
    transcriptPosition: record.transcript_position,
    turnId: record.turn_id,
  };
}

function receiptOf(record: Omit<ReceiptRecord, "intent">): InputReceipt {
  return {
    id: record.id,
    session_id: record.session,
    kind: record.kind,
    admission: "accepted",
    accepted_at: timestamp(record.accepted_at),
    acceptance_order: record.acceptance_order,
    delivery: record.delivery,
    transcript_position: record.transcript_position,
    turn:
      record.turn_id === null || record.turn_state === null || record.turn_started_at === null
        ? null
        : {
            id: record.turn_id,
            state: record.turn_state,
            started_at: timestamp(record.turn_started_at),
            ended_at: record.turn_ended_at === null ? null : timestamp(record.turn_ended_at),
          },
    client_id: record.client_id,
    sent_by: record.sent_by,
    sent_from: record.sent_from,
  };
}

function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** The receipt of `input` just admitted with acceptance order `order` (pending), without reading it back. */
export function pendingReceipt(input: NewInput, order: number): InputReceipt {
  return receiptOf({
    id: input.id,
    session: input.session,
    kind: input.kind,
    client_id: input.clientId ?? null,
    sent_by: input.sentBy ?? null,
    sent_from: input.sentFrom ?? null,
    accepted_at: input.acceptedAt,
    acceptance_order: order,
    delivery: "pending",
    transcript_position: null,
    turn_id: null,
    turn_state: null,
    turn_started_at: null,
    turn_ended_at: null,
  });
}

/** A turn as a delivered input's receipt shows it (ms since the epoch). */
export interface ReceiptTurn {
  id: string;
  state: TurnState;
  startedAt: number;
  endedAt: number | null;
}

/**
 * The receipt of `row` delivered by `turn` at log position `transcriptPosition`, as reading it
 * back after the commit that wrote them would give, without the read.
 */
export function deliveredReceipt(
  row: InputRow,
  transcriptPosition: number | null,
  turn: ReceiptTurn,
): InputReceipt {
  return receiptOf({
    id: row.id,
    session: row.session,
    kind: row.kind,
    client_id: row.clientId,
    sent_by: row.sentBy,
    sent_from: row.sentFrom,
    accepted_at: row.acceptedAt,
    acceptance_order: row.acceptanceOrder,
    delivery: "committed",
    transcript_position: transcriptPosition,
    turn_id: turn.id,
    turn_state: turn.state,
    turn_started_at: turn.startedAt,
    turn_ended_at: turn.endedAt,
  });
}

/** The receipt of the session's input, or null when the session has no input with this id. */
export function* getReceiptProgram(sessionId: string, inputId: string): SqlProgram<InputReceipt | null> {
  const record = yield* get<ReceiptRecord>(
    `${receiptSelect} WHERE i.id = ? AND i.session = ?`,
    inputId,
    sessionId,
  );
  return record === undefined ? null : receiptOf(record);
}

/** A session's input, named for a receipt read. */
export interface InputRef {
  sessionId: string;
  inputId: string;
}

/**
 * The receipts of `refs` in one statement, in their order (null where the session has no such
 * input): a listing's receipts without a read each.
 */
export function* getReceiptsProgram(refs: readonly InputRef[]): SqlProgram<Array<InputReceipt | null>> {
  if (refs.length === 0) return [];
  // The ids travel as one JSON array, so every list size is one statement text.
  const ids =
    (yield* dialect()) === "sqlite"
      ? "SELECT value FROM json_each(?)"
      : "SELECT jsonb_array_elements_text(?::jsonb)";
  const records = yield* all<ReceiptRecord>(
    `${receiptSelect} WHERE i.id IN (${ids})`,
    JSON.stringify(refs.map((ref) => ref.inputId)),
  );
  const byId = new Map(records.map((record) => [record.id, record]));
  return refs.map((ref) => {
    const record = byId.get(ref.inputId);
    return record === undefined || record.session !== ref.sessionId ? null : receiptOf(record);
  });
}

/** `getReceiptProgram` on a SQLite connection. */
export function getReceipt(db: DaemonDatabase, sessionId: string, inputId: string): InputReceipt | null {
  return runSqlite(db, getReceiptProgram(sessionId, inputId));
}

/** The input row (any session), or null. */
function* getInputProgram(inputId: string): SqlProgram<InputRow | null> {
  const record = yield* get<InputRecord>("SELECT * FROM inputs WHERE id = ?", inputId);
  return record === undefined ? null : rowOf(record);
}

/** Ids of the sessions that have inputs waiting. */
export function* sessionsWithPendingInputsProgram(): SqlProgram<string[]> {
  const rows = yield* all<{ session: string }>(
    "SELECT DISTINCT session FROM inputs WHERE delivery = 'pending'",
  );
  return rows.map((row) => row.session);
}

/** The session's waiting inputs in acceptance order (the FIFO queue). */
export function* listPendingInputsProgram(sessionId: string): SqlProgram<InputRow[]> {
  const rows = yield* all<InputRecord>(
    "SELECT * FROM inputs WHERE session = ? AND delivery = 'pending' ORDER BY acceptance_order",
    sessionId,
  );
  return rows.map(rowOf);
}

/** `listPendingInputsProgram` on a SQLite connection. */
export function listPendingInputs(db: DaemonDatabase, sessionId: string): InputRow[] {
  return runSqlite(db, listPendingInputsProgram(sessionId));
}

/** A waiting input in the shape of the snapshot's `pending_inputs` items. */
export function pendingInputJson(row: InputRow): PendingInputJson {
  return {
    id: row.id,
    kind: row.kind,
    accepted_at: timestamp(row.acceptedAt),
    acceptance_order: row.acceptanceOrder,
    delivery: "pending",
  };
}

/**
 * Mark inputs committed by `turnId`, each with the log position of the entry that delivered it
 * (null when none did). All or nothing: throws `InputNotPendingError` if any is not pending, and
 * inside the caller's transaction that rolls back the log append too.
 */
export function* markInputsCommittedProgram(
  turnId: string,
  commits: readonly InputCommit[],
): SqlProgram<void> {
  for (const { id, transcriptPosition } of commits) {
    const changed = yield* run(
      `UPDATE inputs SET delivery = 'committed', turn_id = ?, transcript_position = ?
       WHERE id = ? AND delivery = 'pending'`,
      turnId,
      transcriptPosition,
      id,
    );
    if (changed.changes === 0) {
      throw new InputNotPendingError(id, (yield* getInputProgram(id))?.delivery ?? null);
    }
  }
}

/** `markInputsCommittedProgram` on a SQLite connection, all or nothing. */
export function markInputsCommitted(
  db: DaemonDatabase,
  turnId: string,
  commits: readonly InputCommit[],
): void {
  runSqliteAtomic(db, markInputsCommittedProgram(turnId, commits));
}

/** Cancel the session's waiting inputs with acceptance_order <= `order`; returns their ids in order. */
export function* cancelInputsThroughProgram(sessionId: string, order: number): SqlProgram<string[]> {
  const rows = yield* all<{ id: string; acceptance_order: number }>(
    `UPDATE inputs SET delivery = 'cancelled'
     WHERE session = ? AND delivery = 'pending' AND acceptance_order <= ? RETURNING id, acceptance_order`,
    sessionId,
    order,
  );
  return rows.sort((a, b) => a.acceptance_order - b.acceptance_order).map((row) => row.id);
}

/** `cancelInputsThroughProgram` on a SQLite connection. */
export function cancelInputsThrough(db: DaemonDatabase, sessionId: string, order: number): string[] {
  return runSqliteAtomic(db, cancelInputsThroughProgram(sessionId, order));
}

/**
 * Cancel one input if it is still waiting: "cancelled", or "not_pending" when it was committed
 * or cancelled before. Throws `InputUnknownError` if the session has no such input.
 */
export function* cancelInputProgram(
  sessionId: string,
  inputId: string,
): SqlProgram<"cancelled" | "not_pending"> {
  const changed = yield* run(
    "UPDATE inputs SET delivery = 'cancelled' WHERE id = ? AND session = ? AND delivery = 'pending'",
    inputId,
    sessionId,
  );
  if (changed.changes > 0) return "cancelled";
  const existing = yield* getInputProgram(inputId);
  if (existing === null || existing.session !== sessionId) throw new InputUnknownError(sessionId, inputId);
  return "not_pending";
}

/** `cancelInputProgram` on a SQLite connection. */
export function cancelInput(
  db: DaemonDatabase,
  sessionId: string,
  inputId: string,
): "cancelled" | "not_pending" {
  return runSqliteAtomic(db, cancelInputProgram(sessionId, inputId));
}
