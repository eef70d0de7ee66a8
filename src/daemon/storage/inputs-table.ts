/**
 * The `inputs` table: durable, idempotent admission of a session's inputs, their FIFO queue and
 * their receipts.
 *
 * Boundary rule: synchronous functions over one better-sqlite3 connection, composable inside
 * the caller's `db.transaction`. An input's identity is its id plus its intent (the canonical
 * JSON of what the client asked for); admission order comes from the session's `input_order`
 * counter, bumped in the same transaction as the insert, so orders are gapless per session.
 */
import type {
  InputDelivery,
  InputReceipt,
  PendingInput as PendingInputJson,
  TurnState,
} from "../../api/inputs.js";
import { canonicalJson } from "../../log/canonical-json.js";
import type { JsonValue } from "../../model/json.js";
import {
  InputConflictError,
  InputNotPendingError,
  InputUnknownError,
  QueueFullError,
  SessionUnknownError,
} from "../errors.js";
import type { DaemonDatabase } from "./database.js";
import { cachedStatements, type StatementCache } from "./statement-cache.js";

/** How many inputs may wait in one session's queue. */
export const defaultQueueLimit = 32;

export interface InputRow {
  id: string;
  session: string;
  kind: string;
  /** The intent as admitted (parsed back from its canonical JSON). */
  intent: JsonValue;
  clientId: string | null;
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
  acceptedAt: number;
}

export interface Admission {
  receipt: InputReceipt;
  /** False when the same input had been admitted before (an idempotent retry). */
  created: boolean;
}

/** One input delivered by a turn and the log position of the entry that delivered it. */
export interface InputCommit {
  id: string;
  transcriptPosition: number | null;
}

interface InputRecord {
  id: string;
  session: string;
  kind: string;
  intent: string;
  client_id: string | null;
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

const cache: StatementCache<ReturnType<typeof prepare>> = new WeakMap();

function prepare(db: DaemonDatabase) {
  const receiptSelect = `SELECT i.*, t.state AS turn_state, t.started_at AS turn_started_at, t.ended_at AS turn_ended_at
    FROM inputs AS i LEFT JOIN turns AS t ON t.id = i.turn_id`;
  return {
    get: db.prepare("SELECT * FROM inputs WHERE id = ?"),
    receipt: db.prepare(`${receiptSelect} WHERE i.id = ? AND i.session = ?`),
    countPending: db.prepare("SELECT count(*) AS n FROM inputs WHERE session = ? AND delivery = 'pending'"),
    bumpOrder: db.prepare(
      "UPDATE sessions SET input_order = input_order + 1 WHERE id = ? RETURNING input_order",
    ),
    insert: db.prepare(
      `INSERT INTO inputs (id, session, kind, intent, client_id, accepted_at, acceptance_order, delivery)
       VALUES (@id, @session, @kind, @intent, @client_id, @accepted_at, @acceptance_order, 'pending')`,
    ),
    pending: db.prepare(
      "SELECT * FROM inputs WHERE session = ? AND delivery = 'pending' ORDER BY acceptance_order",
    ),
    sessionsPending: db.prepare("SELECT DISTINCT session FROM inputs WHERE delivery = 'pending'"),
    commit: db.prepare(
      `UPDATE inputs SET delivery = 'committed', turn_id = ?, transcript_position = ?
       WHERE id = ? AND delivery = 'pending'`,
    ),
    cancelThrough: db.prepare(
      `UPDATE inputs SET delivery = 'cancelled'
       WHERE session = ? AND delivery = 'pending' AND acceptance_order <= ? RETURNING id, acceptance_order`,
    ),
    cancelOne: db.prepare(
      "UPDATE inputs SET delivery = 'cancelled' WHERE id = ? AND session = ? AND delivery = 'pending'",
    ),
  };
}

function statements(db: DaemonDatabase) {
  return cachedStatements(cache, db, prepare);
}

function rowOf(record: InputRecord): InputRow {
  return {
    id: record.id,
    session: record.session,
    kind: record.kind,
    intent: JSON.parse(record.intent) as JsonValue,
    clientId: record.client_id,
    acceptedAt: record.accepted_at,
    acceptanceOrder: record.acceptance_order,
    delivery: record.delivery,
    transcriptPosition: record.transcript_position,
    turnId: record.turn_id,
  };
}

function receiptOf(record: ReceiptRecord): InputReceipt {
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
  };
}

function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Admit an input, or recognise a retry of one: the same id with the same intent in the same
 * session returns the existing receipt (created: false) even when the queue is full; the same id
 * with another intent or in another session throws `InputConflictError`. A new input gets the
 * session's next acceptance_order, unless `queueLimit` inputs are waiting (`QueueFullError`).
 * Throws `SessionUnknownError` if the session has no row.
 */
export function admitInput(
  db: DaemonDatabase,
  input: NewInput,
  options: { queueLimit?: number } = {},
): Admission {
  const queueLimit = options.queueLimit ?? defaultQueueLimit;
  const intent = canonicalJson(input.intent);
  const admit = db.transaction((): Admission => {
    const s = statements(db);
    const existing = s.get.get(input.id) as InputRecord | undefined;
    if (existing !== undefined) {
      if (existing.session !== input.session) {
        throw new InputConflictError(input.session, input.id, "other_session");
      }
      if (existing.intent !== intent || existing.kind !== input.kind) {
        throw new InputConflictError(input.session, input.id, "other_intent");
      }
      return { receipt: getReceipt(db, input.session, input.id)!, created: false };
    }
    const waiting = (s.countPending.get(input.session) as { n: number }).n;
    if (waiting >= queueLimit) throw new QueueFullError(input.session, queueLimit);
    const bumped = s.bumpOrder.get(input.session) as { input_order: number } | undefined;
    if (bumped === undefined) throw new SessionUnknownError(input.session);
    s.insert.run({
      id: input.id,
      session: input.session,
      kind: input.kind,
      intent,
      client_id: input.clientId ?? null,
      accepted_at: input.acceptedAt,
      acceptance_order: bumped.input_order,
    });
    return { receipt: getReceipt(db, input.session, input.id)!, created: true };
  });
  return admit.immediate();
}

/** The receipt of the session's input, or null when the session has no input with this id. */
export function getReceipt(db: DaemonDatabase, sessionId: string, inputId: string): InputReceipt | null {
  const record = statements(db).receipt.get(inputId, sessionId) as ReceiptRecord | undefined;
  return record === undefined ? null : receiptOf(record);
}

/** The input row (any session), or null. */
export function getInput(db: DaemonDatabase, inputId: string): InputRow | null {
  const record = statements(db).get.get(inputId) as InputRecord | undefined;
  return record === undefined ? null : rowOf(record);
}

/** Ids of the sessions that have inputs waiting. */
export function sessionsWithPendingInputs(db: DaemonDatabase): string[] {
  return (statements(db).sessionsPending.all() as { session: string }[]).map((row) => row.session);
}

/** The session's waiting inputs in acceptance order (the FIFO queue). */
export function listPendingInputs(db: DaemonDatabase, sessionId: string): InputRow[] {
  return (statements(db).pending.all(sessionId) as InputRecord[]).map(rowOf);
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
export function markInputsCommitted(
  db: DaemonDatabase,
  turnId: string,
  commits: readonly InputCommit[],
): void {
  const commit = db.transaction(() => {
    const s = statements(db);
    for (const { id, transcriptPosition } of commits) {
      if (s.commit.run(turnId, transcriptPosition, id).changes === 0) {
        throw new InputNotPendingError(id, getInput(db, id)?.delivery ?? null);
      }
    }
  });
  commit.immediate();
}

/** Cancel the session's waiting inputs with acceptance_order <= `order`; returns their ids in order. */
export function cancelInputsThrough(db: DaemonDatabase, sessionId: string, order: number): string[] {
  const rows = statements(db).cancelThrough.all(sessionId, order) as {
    id: string;
    acceptance_order: number;
  }[];
  return rows.sort((a, b) => a.acceptance_order - b.acceptance_order).map((row) => row.id);
}

/**
 * Cancel one input if it is still waiting: "cancelled", or "not_pending" when it was committed
 * or cancelled before. Throws `InputUnknownError` if the session has no such input.
 */
export function cancelInput(
  db: DaemonDatabase,
  sessionId: string,
  inputId: string,
): "cancelled" | "not_pending" {
  const cancel = db.transaction(() => {
    if (statements(db).cancelOne.run(inputId, sessionId).changes > 0) return "cancelled" as const;
    const existing = getInput(db, inputId);
    if (existing === null || existing.session !== sessionId) throw new InputUnknownError(sessionId, inputId);
    return "not_pending" as const;
  });
  return cancel.immediate();
}
