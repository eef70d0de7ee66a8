/**
 * An input's admission to its session's queue: durable and idempotent (the same id and intent
 * answer the receipt of the input admitted before), its acceptance order taken from the
 * session's `input_order` counter in the same transaction as the insert (gapless per session),
 * and the fresh admission a turn's start makes with it (admitted and delivered in one commit).
 *
 * Boundary rule: SQL programs on the `inputs` table (with the counter on `sessions`) that either
 * backend runs in its caller's transaction; the queue's other operations are inputs-table.ts's.
 */
import { canonicalJson } from "../../log/canonical-json.js";
import { SessionNotFoundError } from "../../log/errors.js";
import { InputConflictError, QueueFullError } from "../errors.js";
import type { DaemonDatabase } from "./database.js";
import {
  type Admission,
  getReceiptProgram,
  type InputRecord,
  type NewInput,
  pendingReceipt,
} from "./inputs-table.js";
import { type SessionRowChanges, sessionRowSets } from "./session-row-update.js";
import { get, run, type SqlProgram } from "./sql-program.js";
import { runSqliteAtomic } from "./sqlite-runner.js";

/** How many inputs may wait in one session's queue. */
export const defaultQueueLimit = 32;

/**
 * Admit an input, or recognise a retry of one: the same id with the same intent in the same
 * session returns the existing receipt (created: false) even when the queue is full; the same id
 * with another intent or in another session throws `InputConflictError`. A new input gets the
 * session's next acceptance_order, unless `queueLimit` inputs are waiting (`QueueFullError`).
 * Throws `SessionNotFoundError` if the session has no row. The order counter is bumped first, so
 * its row lock serialises concurrent admissions of one session (on PostgreSQL too).
 */
export function* admitInputProgram(
  input: NewInput,
  options: { queueLimit?: number } = {},
): SqlProgram<Admission> {
  const queueLimit = options.queueLimit ?? defaultQueueLimit;
  const intent = canonicalJson(input.intent);
  const bumped = yield* bumpInputOrderProgram(input.session, {});
  const existing = yield* get<InputRecord>("SELECT * FROM inputs WHERE id = ?", input.id);
  if (existing !== undefined) {
    checkSameInput(input, intent, existing);
    // A retry gives the counter back: the bump above is undone with the rest of this write.
    if (bumped !== undefined)
      yield* run("UPDATE sessions SET input_order = input_order - 1 WHERE id = ?", input.session);
    return { receipt: (yield* getReceiptProgram(input.session, input.id))!, created: false };
  }
  if (bumped === undefined) throw new SessionNotFoundError(input.session);
  const waitingBefore = bumped.waiting;
  if (waitingBefore >= queueLimit) throw new QueueFullError(input.session, queueLimit);
  yield* insertInputProgram(input, intent, bumped.order, null);
  // Everything a pending receipt holds was just written: no need to read it back.
  return { receipt: pendingReceipt(input, bumped.order), created: true, waitingBefore };
}

/** The order an admission took, and how many of the session's inputs were waiting before it. */
export interface TakenOrder {
  order: number;
  waiting: number;
}

/**
 * Take the session's next acceptance order (the counter's row lock serialises the session's
 * admissions), applying `changes` to its row in the same UPDATE, and count the inputs waiting
 * (in its RETURNING: one statement for all three). Undefined when the session has no row.
 */
export function* bumpInputOrderProgram(
  sessionId: string,
  changes: SessionRowChanges,
): SqlProgram<TakenOrder | undefined> {
  const { sets, params } = sessionRowSets(changes);
  const row = yield* get<{ input_order: number; waiting: number }>(
    `UPDATE sessions SET ${["input_order = input_order + 1", ...sets].join(", ")} WHERE id = ?
     RETURNING input_order, (SELECT count(*) FROM inputs WHERE session = ? AND delivery = 'pending') AS waiting`,
    ...params,
    sessionId,
    sessionId,
  );
  return row === undefined ? undefined : { order: row.input_order, waiting: Number(row.waiting) };
}

/** Where a turn of the same write delivers an input admitted in it. */
export interface Delivery {
  turnId: string;
  transcriptPosition: number | null;
}

/**
 * Insert a new input with acceptance order `order` (`intent`: its canonical JSON): pending, or
 * already `delivered` by a turn starting in the same write (one statement instead of an INSERT
 * and an UPDATE). With `skipTaken`, an id admitted before inserts nothing (ON CONFLICT DO
 * NOTHING, which leaves a PostgreSQL transaction usable) and the answer is false.
 */
function* insertInputProgram(
  input: NewInput,
  intent: string,
  order: number,
  delivered: Delivery | null,
  skipTaken = false,
): SqlProgram<boolean> {
  const changed = yield* run(
    `INSERT INTO inputs (id, session, kind, intent, client_id, sent_by, sent_from, accepted_at, acceptance_order,
       delivery, turn_id, transcript_position)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${skipTaken ? " ON CONFLICT (id) DO NOTHING" : ""}`,
    input.id,
    input.session,
    input.kind,
    intent,
    input.clientId ?? null,
    input.sentBy ?? null,
    input.sentFrom ?? null,
    input.acceptedAt,
    order,
    delivered === null ? "pending" : "committed",
    delivered?.turnId ?? null,
    delivered?.transcriptPosition ?? null,
  );
  return changed.changes > 0;
}

/**
 * Insert an input the caller found fresh (`bumpInputOrderProgram` gave it order `order` and
 * found nothing waiting), pending or `delivered` in the same write; false (the caller's write
 * must then roll back) when the session admitted its id before. An id of another session, or
 * the same id with another intent, throws `InputConflictError` as an admission would (read only
 * then: a fresh input costs the INSERT alone).
 */
export function* insertFreshInputProgram(
  input: NewInput,
  order: number,
  delivered: Delivery | null,
): SqlProgram<boolean> {
  const intent = canonicalJson(input.intent);
  if (yield* insertInputProgram(input, intent, order, delivered, true)) return true;
  const existing = yield* get<InputRecord>("SELECT * FROM inputs WHERE id = ?", input.id);
  if (existing !== undefined) checkSameInput(input, intent, existing);
  return false;
}

/** Throw `InputConflictError` unless `existing` is `input` (same session, kind and intent) admitted before. */
function checkSameInput(input: NewInput, intent: string, existing: InputRecord): void {
  if (existing.session !== input.session) {
    throw new InputConflictError(input.session, input.id, "other_session");
  }
  if (existing.intent !== intent || existing.kind !== input.kind) {
    throw new InputConflictError(input.session, input.id, "other_intent");
  }
}

/** `admitInputProgram` on a SQLite connection, in its own transaction. */
export function admitInput(
  db: DaemonDatabase,
  input: NewInput,
  options: { queueLimit?: number } = {},
): Admission {
  return runSqliteAtomic(db, admitInputProgram(input, options));
}
