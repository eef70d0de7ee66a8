/**
 * The `schedules` table: each schedule's timing (a cron expression in a time zone, or one time),
 * its target (a session, or a new session per firing), its prompt and missed-firing policy,
 * whether it is paused, and where its firings stand (`next_fire_at`, the last firing).
 *
 * Boundary rule: SQL programs (sql-program.ts) for either backend. `next_fire_at` moves only by
 * a compare-and-set on its current value (`advanceScheduleProgram`): of two nodes (or a node and
 * its restart) that handled the same firing, one moves it and the other changes nothing. Not
 * session data: the target column is `session_id`, so deleting a session leaves its schedules.
 * On PostgreSQL a creation, pause, resume or removal NOTIFYs `schedulesChannel` in its own
 * transaction, so every node's scheduler hears of it exactly when it commits and looks again.
 */

import { limitClause } from "../../log/sql-limit.js";
import type { Budget } from "../../model/budget.js";
import { all, dialect, get, run, type SqlProgram } from "./sql-program.js";

/**
 * The channel a committed change of a schedule's timing is announced on (PostgreSQL): a node's
 * scheduler sleeps until its earliest firing, so a schedule another node added or resumed must
 * wake it. A moved next firing is not announced: it only ever moves later.
 */
export const schedulesChannel = "skein_schedules";

/**
 * NOTIFY every node's scheduler at this transaction's commit, naming `id` (a stored id: at most
 * 128 characters, far below a payload's 8000 bytes). Nothing on SQLite: it has one writer.
 */
function* announceChange(id: string): SqlProgram<void> {
  if ((yield* dialect()) === "postgres") yield* get("SELECT pg_notify(?, ?)", schedulesChannel, id);
}

/** A schedule as stored (times in ms since the epoch). */
export interface ScheduleRow {
  id: string;
  cron: string | null;
  at: number | null;
  timezone: string | null;
  sessionId: string | null;
  newSession: { workspace: string; profile: string | null } | null;
  prompt: string;
  missed: "skip" | "run_once";
  paused: boolean;
  nextFireAt: number | null;
  lastFiredAt: number | null;
  lastInputId: string | null;
  lastSessionId: string | null;
  createdAt: number;
  /** What the turns its firings start may use together (null: no budget of its own). */
  budget: Budget | null;
}

/** The last firing a schedule made (recorded with the move of its next firing). */
export interface FiringRecord {
  firedAt: number;
  inputId: string;
  sessionId: string;
}

interface ScheduleRecord {
  id: string;
  cron: string | null;
  at_time: number | null;
  timezone: string | null;
  session_id: string | null;
  new_session: string | null;
  prompt: string;
  missed: "skip" | "run_once";
  paused: number;
  next_fire_at: number | null;
  last_fired_at: number | null;
  last_input_id: string | null;
  last_session_id: string | null;
  created_at: number;
  budget: string | null;
}

const columns =
  "id, cron, at_time, timezone, session_id, new_session, prompt, missed, paused, next_fire_at, " +
  "last_fired_at, last_input_id, last_session_id, created_at, budget";

function rowOf(record: ScheduleRecord): ScheduleRow {
  return {
    id: record.id,
    cron: record.cron,
    at: record.at_time,
    timezone: record.timezone,
    sessionId: record.session_id,
    newSession:
      record.new_session === null
        ? null
        : (JSON.parse(record.new_session) as { workspace: string; profile: string | null }),
    prompt: record.prompt,
    missed: record.missed,
    paused: record.paused !== 0,
    nextFireAt: record.next_fire_at,
    lastFiredAt: record.last_fired_at,
    lastInputId: record.last_input_id,
    lastSessionId: record.last_session_id,
    createdAt: record.created_at,
    budget: record.budget === null ? null : (JSON.parse(record.budget) as Budget),
  };
}

/** Store a new schedule; false (nothing written) when its id is taken. */
export function* insertScheduleProgram(row: ScheduleRow): SqlProgram<boolean> {
  const result = yield* run(
    `INSERT INTO schedules (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO NOTHING`,
    row.id,
    row.cron,
    row.at,
    row.timezone,
    row.sessionId,
    row.newSession === null ? null : JSON.stringify(row.newSession),
    row.prompt,
    row.missed,
    row.paused ? 1 : 0,
    row.nextFireAt,
    row.lastFiredAt,
    row.lastInputId,
    row.lastSessionId,
    row.createdAt,
    row.budget === null ? null : JSON.stringify(row.budget),
  );
  if (result.changes !== 1) return false;
  yield* announceChange(row.id);
  return true;
}

/** The schedule `id`, or null. */
export function* getScheduleProgram(id: string): SqlProgram<ScheduleRow | null> {
  const record = yield* get<ScheduleRecord>(`SELECT ${columns} FROM schedules WHERE id = ?`, id);
  return record === undefined ? null : rowOf(record);
}

/** Where a listing page starts: after the schedule with this creation time and id. */
interface ScheduleListKey {
  createdAt: number;
  id: string;
}

/** One page of the listing: at most `limit` schedules, after `after` (from the oldest without it). */
export interface SchedulePage {
  limit: number;
  after?: ScheduleListKey;
}

/**
 * A page of schedules, oldest first (creation time, then id): a keyset range of the
 * `schedules_by_creation` index, so a page costs the same wherever it starts.
 */
export function* listSchedulesProgram(page: SchedulePage): SqlProgram<ScheduleRow[]> {
  const limit = limitClause(page.limit);
  const { after } = page;
  // The first condition alone is a range of the index; the second leaves out what the key passed.
  const records =
    after === undefined
      ? yield* all<ScheduleRecord>(`SELECT ${columns} FROM schedules ORDER BY created_at, id ${limit}`)
      : yield* all<ScheduleRecord>(
          `SELECT ${columns} FROM schedules WHERE created_at >= ? AND (created_at > ? OR id > ?)
           ORDER BY created_at, id ${limit}`,
          after.createdAt,
          after.createdAt,
          after.id,
        );
  return records.map(rowOf);
}

/** The schedules not paused whose next firing is at or before `now`, the most overdue first. */
export function* dueSchedulesProgram(now: number, limit: number): SqlProgram<ScheduleRow[]> {
  const records = yield* all<ScheduleRecord>(
    `SELECT ${columns} FROM schedules WHERE paused = 0 AND next_fire_at IS NOT NULL AND next_fire_at <= ?
     ORDER BY next_fire_at, id ${limitClause(limit)}`,
    now,
  );
  return records.map(rowOf);
}

/** The earliest next firing of a schedule not paused, or null when none will fire. */
export function* earliestFiringProgram(): SqlProgram<number | null> {
  const row = yield* get<{ next: number | null }>(
    "SELECT min(next_fire_at) AS next FROM schedules WHERE paused = 0",
  );
  return row?.next === undefined || row.next === null ? null : Number(row.next);
}

/** Pause or resume `id`; false when there is no such schedule. */
export function* setSchedulePausedProgram(id: string, paused: boolean): SqlProgram<boolean> {
  const result = yield* run("UPDATE schedules SET paused = ? WHERE id = ?", paused ? 1 : 0, id);
  if (result.changes !== 1) return false;
  yield* announceChange(id);
  return true;
}

/** Remove `id`; false when there was no such schedule. */
export function* deleteScheduleProgram(id: string): SqlProgram<boolean> {
  const result = yield* run("DELETE FROM schedules WHERE id = ?", id);
  if (result.changes !== 1) return false;
  yield* announceChange(id);
  return true;
}

/**
 * Move `id`'s next firing from `expected` to `next` (recording `firing` when one was made):
 * true when this call moved it, false when someone else already had (or the schedule is gone).
 */
export function* advanceScheduleProgram(
  id: string,
  expected: number,
  next: number | null,
  firing: FiringRecord | null,
): SqlProgram<boolean> {
  const result =
    firing === null
      ? yield* run(
          "UPDATE schedules SET next_fire_at = ? WHERE id = ? AND next_fire_at = ?",
          next,
          id,
          expected,
        )
      : yield* run(
          `UPDATE schedules SET next_fire_at = ?, last_fired_at = ?, last_input_id = ?, last_session_id = ?
           WHERE id = ? AND next_fire_at = ?`,
          next,
          firing.firedAt,
          firing.inputId,
          firing.sessionId,
          id,
          expected,
        );
  return result.changes === 1;
}
