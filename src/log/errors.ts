/** Typed session-log errors; each names the session (and position) it is about. */

/** Base class so callers can catch every log failure at once. */
export class LogError extends Error {
  constructor(
    message: string,
    readonly sessionId: string,
  ) {
    super(message);
    this.name = "LogError";
  }
}

/** The session has no log. */
export class SessionNotFoundError extends LogError {
  constructor(sessionId: string) {
    super(`session ${sessionId} not found`, sessionId);
    this.name = "SessionNotFoundError";
  }
}

/** Verification failed: a changed entry, a missing entry, a wrong prev_hash or an unreadable record. */
export class LogCorruptError extends LogError {
  constructor(
    sessionId: string,
    /** 0-based position of the first entry that fails verification. */
    readonly position: number,
    readonly reason: string,
  ) {
    super(`session ${sessionId} log is corrupt at position ${position}: ${reason}`, sessionId);
    this.name = "LogCorruptError";
  }
}

/** A compare-and-append lost: the head is not the one the writer expected (another writer appended). */
export class AppendConflictError extends LogError {
  constructor(
    sessionId: string,
    readonly expectedHead: string | null,
    readonly actualHead: string | null,
  ) {
    super(
      `session ${sessionId}: append expected head ${expectedHead ?? "(empty)"} but found ${actualHead ?? "(empty)"}`,
      sessionId,
    );
    this.name = "AppendConflictError";
  }
}

/** A fork point that is not in the source log. */
export class UnknownEntryError extends LogError {
  constructor(
    sessionId: string,
    readonly entryHash: string,
  ) {
    super(`session ${sessionId} has no entry with hash ${entryHash}`, sessionId);
    this.name = "UnknownEntryError";
  }
}

/** An append whose entries are malformed: empty, a hash that does not match, or a broken link. */
export class InvalidAppendError extends LogError {
  constructor(
    sessionId: string,
    /** Index of the offending entry within the append (0-based), or -1 for the whole batch. */
    readonly index: number,
    readonly reason: string,
  ) {
    super(`session ${sessionId}: invalid append (entry ${index}): ${reason}`, sessionId);
    this.name = "InvalidAppendError";
  }
}

/** Another writer held a session's lock for longer than the store is willing to wait. */
export class LockTimeoutError extends LogError {
  constructor(
    sessionId: string,
    readonly lockPath: string,
    readonly waitedMs: number,
  ) {
    super(`session ${sessionId}: lock ${lockPath} still held after ${waitedMs} ms`, sessionId);
    this.name = "LockTimeoutError";
  }
}

/**
 * A group commit failed as a whole (the database refused the COMMIT or rolled the transaction
 * back, e.g. on a full disk, or the connection was lost): nothing of the batch is known to be
 * written. `cause` is the storage's own error.
 */
export class GroupCommitFailedError extends LogError {
  constructor(sessionId: string, cause: unknown) {
    super(
      `session ${sessionId}: the write was not committed: ${cause instanceof Error ? cause.message : String(cause)}`,
      sessionId,
    );
    this.name = "GroupCommitFailedError";
    this.cause = cause;
  }
}

/**
 * The store (or the group commit it writes through) was closed and takes no more work: what was
 * queued before the close committed, this write was refused and wrote nothing.
 */
export class StoreClosedError extends LogError {
  constructor(sessionId: string) {
    super(`store is closed (session ${sessionId})`, sessionId);
    this.name = "StoreClosedError";
  }
}
