/**
 * The `rejected_creations` table: session creations the daemon refused for what they asked (a
 * workspace that is no directory, an unknown fork source or checkpoint), remembered so that a
 * later `GET` of the id can answer why there is no such session.
 *
 * Boundary rule: SQL programs (sql-program.ts) for either backend, plus synchronous wrappers on
 * a better-sqlite3 connection. The table stays
 * bounded: a record lives as long as a new id may be used (7 days; older ids are refused as
 * expired anyway), at most `maxRejections` are kept (the oldest go first), and a detail is cut
 * to `maxDetailLength` characters.
 */
import { limitClause } from "../../log/sql-limit.js";
import type { DaemonDatabase } from "./database.js";
import { get, run, type SqlProgram } from "./sql-program.js";
import { runSqlite, runSqliteAtomic } from "./sqlite-runner.js";

/** One remembered refusal: the answer the creation got. */
export interface RejectedCreation {
  id: string;
  /** ms since the epoch. */
  rejectedAt: number;
  status: number;
  code: string;
  detail: string;
}

/** How long a refusal is remembered: as long as a client may still use the id. */
export const rejectionTtlMs = 7 * 24 * 60 * 60 * 1000;
const maxRejections = 10_000;
export const maxDetailLength = 1024;

/** Remember a refusal (replacing an earlier one of the same id) and drop expired and surplus records. */
export function* recordRejectionProgram(
  rejection: RejectedCreation,
  limit = maxRejections,
): SqlProgram<void> {
  yield* run("DELETE FROM rejected_creations WHERE rejected_at < ?", rejection.rejectedAt - rejectionTtlMs);
  yield* run(
    `INSERT INTO rejected_creations (id, rejected_at, status, code, detail) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET rejected_at = excluded.rejected_at, status = excluded.status,
       code = excluded.code, detail = excluded.detail`,
    rejection.id,
    rejection.rejectedAt,
    rejection.status,
    rejection.code,
    rejection.detail.slice(0, maxDetailLength),
  );
  yield* run(
    `DELETE FROM rejected_creations WHERE id NOT IN (
       SELECT id FROM rejected_creations ORDER BY rejected_at DESC, id DESC ${limitClause(limit)})`,
  );
}

/** `recordRejectionProgram` on a SQLite connection, in one transaction. */
export function recordRejection(
  db: DaemonDatabase,
  rejection: RejectedCreation,
  limit = maxRejections,
): void {
  runSqliteAtomic(db, recordRejectionProgram(rejection, limit));
}

/** The remembered refusal of `id`, or null when there is none or it expired by `now`. */
export function* getRejectionProgram(id: string, now: number): SqlProgram<RejectedCreation | null> {
  const record = yield* get<{
    id: string;
    rejected_at: number;
    status: number;
    code: string;
    detail: string;
  }>("SELECT id, rejected_at, status, code, detail FROM rejected_creations WHERE id = ?", id);
  if (record === undefined || record.rejected_at < now - rejectionTtlMs) return null;
  return {
    id: record.id,
    rejectedAt: record.rejected_at,
    status: record.status,
    code: record.code,
    detail: record.detail,
  };
}

/** `getRejectionProgram` on a SQLite connection. */
export function getRejection(db: DaemonDatabase, id: string, now: number): RejectedCreation | null {
  return runSqlite(db, getRejectionProgram(id, now));
}

/** Forget the refusal of `id` (it was created after all). */
export function* forgetRejectionProgram(id: string): SqlProgram<void> {
  yield* run("DELETE FROM rejected_creations WHERE id = ?", id);
}

/** `forgetRejectionProgram` on a SQLite connection. */
export function forgetRejection(db: DaemonDatabase, id: string): void {
  runSqlite(db, forgetRejectionProgram(id));
}
