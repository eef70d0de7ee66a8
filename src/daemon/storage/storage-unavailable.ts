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

/** True when `error` (or the failed group commit it wraps) is the storage being unusable. */
export function isStorageUnavailable(error: unknown): boolean {
  if (error instanceof GroupCommitFailedError)
    return isStorageUnavailable(error.cause) || !isSqliteError(error.cause);
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code !== "string") return false;
  if (code.startsWith("SQLITE_"))
    return unavailableCodes.some((known) => code === known || code.startsWith(`${known}_`));
  return code === "ENOSPC" || code === "EIO" || code === "EROFS" || code === "EDQUOT";
}

/** A SQLite error of any kind (the storage answered, even if only to refuse a statement). */
export function isSqliteError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return error.name === "SqliteError" || (typeof code === "string" && code.startsWith("SQLITE_"));
}

/** The storage's own words for a failure, for logs and error events (no stack, no SQL). */
export function storageFailureText(error: unknown): string {
  const cause = error instanceof GroupCommitFailedError ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
