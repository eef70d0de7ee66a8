/**
 * SQL programs: the daemon's table logic written once for both backends. A program is a
 * generator that yields one statement at a time (`get`, `all`, `run`) and receives its result;
 * the SQLite runner (sqlite-runner.ts) drives it synchronously inside the caller's transaction,
 * the PostgreSQL runner (pg-runner.ts) asynchronously on one client of a transaction. So each
 * table's reads, checks and domain errors exist once, and a backend is only a runner.
 *
 * Boundary rule: programs write SQL in the common subset of both dialects with `?` placeholders
 * (the PostgreSQL runner numbers them); where the dialects really differ a program asks for the
 * dialect (`dialect()`) and picks the text itself. A program never opens or ends a transaction:
 * its caller (the storage) decides what commits together.
 */

/** The SQL dialects the daemon's tables are stored in. */
export type SqlDialect = "sqlite" | "postgres";

/** A value a statement can bind. */
export type SqlValue = string | number | null;

/** One step of a program: a statement to run, or the question which dialect runs it. */
export type SqlStep =
  | { op: "get"; sql: string; params: readonly SqlValue[] }
  | { op: "all"; sql: string; params: readonly SqlValue[] }
  | { op: "run"; sql: string; params: readonly SqlValue[] }
  | { op: "dialect" };

/** What a `run` step answers: how many rows it changed. */
export interface RunResult {
  changes: number;
}

/** A program producing `T`. */
export type SqlProgram<T> = Generator<SqlStep, T, unknown>;

/** The first row of `sql`, or undefined. */
export function* get<R>(sql: string, ...params: SqlValue[]): Generator<SqlStep, R | undefined, unknown> {
  return (yield { op: "get", sql, params }) as R | undefined;
}

/** Every row of `sql`. */
export function* all<R>(sql: string, ...params: SqlValue[]): Generator<SqlStep, R[], unknown> {
  return (yield { op: "all", sql, params }) as R[];
}

/** Run `sql` for its effect. */
export function* run(sql: string, ...params: SqlValue[]): Generator<SqlStep, RunResult, unknown> {
  return (yield { op: "run", sql, params }) as RunResult;
}

/** Which dialect runs the program. */
export function* dialect(): Generator<SqlStep, SqlDialect, unknown> {
  return (yield { op: "dialect" }) as SqlDialect;
}

// SQLite's extended codes and PostgreSQL's SQLSTATE for a violated uniqueness.
const uniqueCodes = new Set(["SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE", "23505"]);

/** True when `error` is a unique or primary-key violation, in either backend. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return typeof code === "string" && uniqueCodes.has(code);
}
