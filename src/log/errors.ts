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
