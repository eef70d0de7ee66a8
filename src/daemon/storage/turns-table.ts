/**
 * The `turns` table: one row per turn (a run of the model over some inputs), from `running` to
 * one end state. At most one turn per session is running (a partial unique index holds that).
 *
 * Boundary rule: synchronous functions over one better-sqlite3 connection, composable inside
 * the caller's `db.transaction` (e.g. start the turn, commit its inputs and append the log in
 * one transaction).
 */
import type { EndedTurnState, TurnState } from "../../api/inputs.js";
import { TurnStateError } from "../errors.js";
import { type DaemonDatabase, hasSqliteCode } from "./database.js";
import { cachedStatements, type StatementCache } from "./statement-cache.js";

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
}

const cache: StatementCache<ReturnType<typeof prepare>> = new WeakMap();

function prepare(db: DaemonDatabase) {
  return {
    insert: db.prepare(
      "INSERT INTO turns (id, session, state, started_at, input_ids) VALUES (?, ?, 'running', ?, ?)",
    ),
    end: db.prepare(
      "UPDATE turns SET state = ?, ended_at = ?, error = ? WHERE id = ? AND state = 'running' RETURNING *",
    ),
    get: db.prepare("SELECT * FROM turns WHERE id = ?"),
    running: db.prepare("SELECT * FROM turns WHERE state = 'running' ORDER BY started_at, id"),
    runningOfSession: db.prepare("SELECT * FROM turns WHERE session = ? AND state = 'running'"),
  };
}

function statements(db: DaemonDatabase) {
  return cachedStatements(cache, db, prepare);
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
  };
}

/** Record a new running turn; throws `TurnStateError` if the session already has one running or the id is taken. */
export function startTurn(db: DaemonDatabase, turn: NewTurn): TurnRow {
  try {
    statements(db).insert.run(turn.id, turn.session, turn.startedAt, JSON.stringify(turn.inputIds));
  } catch (error) {
    if (hasSqliteCode(error, "SQLITE_CONSTRAINT_PRIMARYKEY")) {
      throw new TurnStateError(turn.id, "a turn with this id exists already");
    }
    if (hasSqliteCode(error, "SQLITE_CONSTRAINT_UNIQUE")) {
      throw new TurnStateError(turn.id, `session ${turn.session} already has a running turn`);
    }
    throw error;
  }
  return getTurn(db, turn.id)!;
}

/** End a running turn; throws `TurnStateError` if the turn is unknown or has ended already. */
export function endTurn(db: DaemonDatabase, turnId: string, end: TurnEnd): TurnRow {
  const record = statements(db).end.get(end.state, end.endedAt, end.error ?? null, turnId) as
    | TurnRecord
    | undefined;
  if (record === undefined) {
    const existing = getTurn(db, turnId);
    throw new TurnStateError(
      turnId,
      existing === null ? "no such turn" : `the turn has ended already (${existing.state})`,
    );
  }
  return rowOf(record);
}

/** The turn, or null. */
export function getTurn(db: DaemonDatabase, turnId: string): TurnRow | null {
  const record = statements(db).get.get(turnId) as TurnRecord | undefined;
  return record === undefined ? null : rowOf(record);
}

/** Every turn still marked running, across sessions, oldest first (at boot: the turns a crash cut short). */
export function runningTurns(db: DaemonDatabase): TurnRow[] {
  return (statements(db).running.all() as TurnRecord[]).map(rowOf);
}

/** The session's running turn, or null. */
export function runningTurnOf(db: DaemonDatabase, sessionId: string): TurnRow | null {
  const record = statements(db).runningOfSession.get(sessionId) as TurnRecord | undefined;
  return record === undefined ? null : rowOf(record);
}
