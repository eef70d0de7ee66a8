/**
 * Which failures mean "the storage cannot serve this now" (a full disk, an I/O error, a locked
 * or read-only database file) as opposed to a bug or a domain refusal.
 *
 * Boundary rule: classification only. Such a failure is answered 503 `request_unavailable`,
 * stops a turn as `failed` with the error code `storage_unavailable`, and never crashes a
 * session actor or makes a live session look deleted: the same request can succeed once the
 * storage recovers.
 */
import { GroupCommitFailedError } from "../../log/errors.js";

// SQLite's primary result codes that describe the storage, not the statement (extended codes
// such as SQLITE_IOERR_WRITE start with these).
const unavailableCodes = [
  "SQLITE_FULL",
  "SQLITE_IOERR",
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_READONLY",
  "SQLITE_CANTOPEN",
  "SQLITE_NOMEM",
  "SQLITE_PROTOCOL",
  "SQLITE_CORRUPT",
  "SQLITE_NOTADB",
];

// The disk or the network under the database.
const osUnavailableCodes = new Set([
  "ENOSPC",
  "EIO",
  "EROFS",
  "EDQUOT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
]);

// PostgreSQL SQLSTATE classes that describe the server, not the statement: connection
// exceptions, insufficient resources, operator intervention (shutdown), system errors.
const pgUnavailableClasses = ["08", "53", "57P", "58"];
// The server ended the session's transaction for its time (idle in transaction: a node paused
// past idle_in_transaction_session_timeout; transaction_timeout), not for what it ran: the same
// work succeeds on a new connection. The rest of class 25 (invalid transaction state) is a bug.
const pgUnavailableCodes = new Set(["25P03", "25P04"]);

// node-postgres's words for a connection that is gone (they carry no code).
const lostConnection =
  /^Connection terminated|^Client has encountered a connection error and is not queryable|^Client was closed and is not queryable|^timeout exceeded when trying to connect/;

function isPgSqlState(code: string): boolean {
  return /^[0-9A-Z]{5}$/.test(code);
}

/** True when `error` (or the failed group commit it wraps) is the storage being unusable. */
export function isStorageUnavailable(error: unknown): boolean {
  if (error instanceof GroupCommitFailedError)
    return isStorageUnavailable(error.cause) || !isDatabaseError(error.cause);
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  // node-postgres reports a lost connection without a code: mid-query, or on the next query
  // of a client whose connection failed while it was checked out.
  if (code === undefined && lostConnection.test(error.message)) return true;
  if (typeof code !== "string") return false;
  if (code.startsWith("SQLITE_"))
    return unavailableCodes.some((known) => code === known || code.startsWith(`${known}_`));
  if (isPgSqlState(code))
    return pgUnavailableCodes.has(code) || pgUnavailableClasses.some((prefix) => code.startsWith(prefix));
  return osUnavailableCodes.has(code);
}

/**
 * A database error of any kind, SQLite's or PostgreSQL's (the storage answered, even if only to
 * refuse a statement).
 */
export function isDatabaseError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as Error & { code?: unknown; severity?: unknown };
  if (error.name === "SqliteError" || (typeof code === "string" && code.startsWith("SQLITE_"))) return true;
  return typeof severity === "string" && typeof code === "string" && isPgSqlState(code);
}

/** The storage's own words for a failure, for logs and error events (no stack, no SQL). */
export function storageFailureText(error: unknown): string {
  const cause = error instanceof GroupCommitFailedError ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
