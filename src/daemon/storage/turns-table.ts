/**
 * The `turns` table: one row per turn (a run of the model over some inputs), from `running` to
 * one end state. At most one turn per session is running (a partial unique index holds that).
 *
 * Boundary rule: each operation is a SQL program (sql-program.ts) that either backend runs in
 * its caller's transaction (e.g. start the turn, commit its inputs and append the log in one
 * transaction), plus a synchronous wrapper on a better-sqlite3 connection.
 */
import type { EndedTurnState, TurnState } from "../../api/inputs.js";
import { TurnStateError } from "../errors.js";
import type { DaemonDatabase } from "./database.js";
import { all, get, isUniqueViolation, run, type SqlProgram } from "./sql-program.js";
import { runSqlite, runSqliteAtomic } from "./sqlite-runner.js";

export interface TurnRow {
  id: string;
  session: string;
  state: TurnState;
  /** ms since the epoch. */
  startedAt: number;
  endedAt: number | null;
  /** The inputs this turn delivers, in acceptance order. */
  inputIds: string[];
  error: string | null;
  /**
   * When a user's interrupt of the running turn was acknowledged (ms), or null: written before
   * the interrupt's 200, so a turn a crash cuts short after it ends interrupted at recovery.
   */
  interruptRequestedAt: number | null;
}

export interface NewTurn {
  id: string;
  session: string;
  inputIds: readonly string[];
  startedAt: number;
}

export interface TurnEnd {
  state: EndedTurnState;
  endedAt: number;
  error?: string | null;
}

interface TurnRecord {
  id: string;
  session: string;
  state: TurnState;
  started_at: number;
  ended_at: number | null;
  input_ids: string;
  error: string | null;
  interrupt_requested_at: number | null;
}

function rowOf(record: TurnRecord): TurnRow {
  return {
    id: record.id,
    session: record.session,
    state: record.state,
    startedAt: record.started_at,
    endedAt: record.ended_at,
    inputIds: JSON.parse(record.input_ids) as string[],
    error: record.error,
    interruptRequestedAt: record.interrupt_requested_at,
  };
}

/** Record a new running turn; throws `TurnStateError` if the session already has one running or the id is taken. */
export function* startTurnProgram(turn: NewTurn): SqlProgram<TurnRow> {
  let record: TurnRecord | undefined;
  try {
    record = yield* get<TurnRecord>(
      "INSERT INTO turns (id, session, state, started_at, input_ids) VALUES (?, ?, 'running', ?, ?) RETURNING *",
      turn.id,
      turn.session,
      turn.startedAt,
      JSON.stringify(turn.inputIds),
    );
  } catch (error) {
    if (isUniqueViolation(error)) {
      // Turn ids are fresh UUIDv7s: the one unique rule a new turn can break is one running turn per session.
      throw new TurnStateError(turn.id, `session ${turn.session} already has a running turn`);
    }
    throw error;
  }
  return rowOf(record!);
}

/**
 * End `sessionId`'s running turn `turnId` as failed; `TurnStateError` (rolling the write back)
 * when it is another session's.
 */
export function* failTurnProgram(
  sessionId: string,
  turnId: string,
  endedAt: number,
  error: string,
): SqlProgram<TurnRow> {
  const ended = yield* endTurnProgram(turnId, { state: "failed", endedAt, error });
  if (ended.session !== sessionId) throw new TurnStateError(turnId, `the turn is not session ${sessionId}'s`);
  return ended;
}

/** `startTurnProgram` on a SQLite connection. */
export function startTurn(db: DaemonDatabase, turn: NewTurn): TurnRow {
  return runSqliteAtomic(db, startTurnProgram(turn));
}

/** End a running turn; throws `TurnStateError` if the turn is unknown or has ended already. */
export function* endTurnProgram(turnId: string, end: TurnEnd): SqlProgram<TurnRow> {
  const record = yield* get<TurnRecord>(
    "UPDATE turns SET state = ?, ended_at = ?, error = ? WHERE id = ? AND state = 'running' RETURNING *",
    end.state,
    end.endedAt,
    end.error ?? null,
    turnId,
  );
  if (record === undefined) {
    const existing = yield* getTurnProgram(turnId);
    throw new TurnStateError(
      turnId,
      existing === null ? "no such turn" : `the turn has ended already (${existing.state})`,
    );
  }
  return rowOf(record);
}

/**
 * Mark the running turn `turnId` interrupted by a user at `at` (the first mark stays); a turn
 * that has ended already is left alone (its end says how it ended).
 */
export function* markInterruptRequestedProgram(turnId: string, at: number): SqlProgram<void> {
  yield* run(
    "UPDATE turns SET interrupt_requested_at = COALESCE(interrupt_requested_at, ?) WHERE id = ? AND state = 'running'",
    at,
    turnId,
  );
}

/** `endTurnProgram` on a SQLite connection. */
export function endTurn(db: DaemonDatabase, turnId: string, end: TurnEnd): TurnRow {
  return runSqlite(db, endTurnProgram(turnId, end));
}

/** The turn, or null. */
function* getTurnProgram(turnId: string): SqlProgram<TurnRow | null> {
  const record = yield* get<TurnRecord>("SELECT * FROM turns WHERE id = ?", turnId);
  return record === undefined ? null : rowOf(record);
}

/** `getTurnProgram` on a SQLite connection. */
export function getTurn(db: DaemonDatabase, turnId: string): TurnRow | null {
  return runSqlite(db, getTurnProgram(turnId));
}

/** Every turn still marked running, across sessions, oldest first (at boot: the turns a crash cut short). */
export function* runningTurnsProgram(): SqlProgram<TurnRow[]> {
  return (yield* all<TurnRecord>("SELECT * FROM turns WHERE state = 'running' ORDER BY started_at, id")).map(
    rowOf,
  );
}

/** `runningTurnsProgram` on a SQLite connection. */
export function runningTurns(db: DaemonDatabase): TurnRow[] {
  return runSqlite(db, runningTurnsProgram());
}

/** The session's running turn, or null. */
export function* runningTurnOfProgram(sessionId: string): SqlProgram<TurnRow | null> {
  const record = yield* get<TurnRecord>(
    "SELECT * FROM turns WHERE session = ? AND state = 'running'",
    sessionId,
  );
  return record === undefined ? null : rowOf(record);
}

/** `runningTurnOfProgram` on a SQLite connection. */
export function runningTurnOf(db: DaemonDatabase, sessionId: string): TurnRow | null {
  return runSqlite(db, runningTurnOfProgram(sessionId));
}
