/**
 * The `rejected_creations` table: session creations the daemon refused for what they asked (a
 * workspace that is no directory, an unknown fork source or checkpoint), remembered so that a
 * later `GET` of the id can answer why there is no such session.
 *
 * Boundary rule: synchronous functions over one better-sqlite3 connection. The table stays
 * bounded: a record lives as long as a new id may be used (7 days; older ids are refused as
 * expired anyway), at most `maxRejections` are kept (the oldest go first), and a detail is cut
 * to `maxDetailLength` characters.
 */
import type { DaemonDatabase } from "./database.js";
import { cachedStatements, type StatementCache } from "./statement-cache.js";

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
export const maxRejections = 10_000;
export const maxDetailLength = 1024;

const cache: StatementCache<ReturnType<typeof prepare>> = new WeakMap();

function prepare(db: DaemonDatabase) {
  return {
    upsert: db.prepare(
      `INSERT INTO rejected_creations (id, rejected_at, status, code, detail) VALUES (@id, @rejectedAt, @status, @code, @detail)
       ON CONFLICT (id) DO UPDATE SET rejected_at = excluded.rejected_at, status = excluded.status,
         code = excluded.code, detail = excluded.detail`,
    ),
    get: db.prepare("SELECT id, rejected_at, status, code, detail FROM rejected_creations WHERE id = ?"),
    forget: db.prepare("DELETE FROM rejected_creations WHERE id = ?"),
    expire: db.prepare("DELETE FROM rejected_creations WHERE rejected_at < ?"),
    trim: db.prepare(
      `DELETE FROM rejected_creations WHERE id IN (
         SELECT id FROM rejected_creations ORDER BY rejected_at DESC, id DESC LIMIT -1 OFFSET ?)`,
    ),
  };
}

function statements(db: DaemonDatabase) {
  return cachedStatements(cache, db, prepare);
}

/** Remember a refusal (replacing an earlier one of the same id) and drop expired and surplus records. */
export function recordRejection(
  db: DaemonDatabase,
  rejection: RejectedCreation,
  limit = maxRejections,
): void {
  const all = statements(db);
  db.transaction(() => {
    all.expire.run(rejection.rejectedAt - rejectionTtlMs);
    all.upsert.run({ ...rejection, detail: rejection.detail.slice(0, maxDetailLength) });
    all.trim.run(limit);
  }).immediate();
}

/** The remembered refusal of `id`, or null when there is none or it expired by `now`. */
export function getRejection(db: DaemonDatabase, id: string, now: number): RejectedCreation | null {
  const record = statements(db).get.get(id) as
    | { id: string; rejected_at: number; status: number; code: string; detail: string }
    | undefined;
  if (record === undefined || record.rejected_at < now - rejectionTtlMs) return null;
  return {
    id: record.id,
    rejectedAt: record.rejected_at,
    status: record.status,
    code: record.code,
    detail: record.detail,
  };
}

/** Forget the refusal of `id` (it was created after all). */
export function forgetRejection(db: DaemonDatabase, id: string): void {
  statements(db).forget.run(id);
}
