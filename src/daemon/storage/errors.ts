/** Typed errors of the daemon's storage functions; each names the session (and input or turn) it is about. */

/** A session row with this id exists already (create → 412). */
export class SessionExistsError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} already exists`);
    this.name = "SessionExistsError";
  }
}

/** There is no session row with this id. */
export class SessionUnknownError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} does not exist`);
    this.name = "SessionUnknownError";
  }
}

/** The input id is taken by another intent or by another session's input (→ 409 input_conflict). */
export class InputConflictError extends Error {
  constructor(
    readonly sessionId: string,
    readonly inputId: string,
    readonly reason: "other_intent" | "other_session",
  ) {
    super(
      reason === "other_session"
        ? `input ${inputId} belongs to another session than ${sessionId}`
        : `input ${inputId} of session ${sessionId} was accepted with a different body`,
    );
    this.name = "InputConflictError";
  }
}

/** The session already has `limit` inputs waiting (→ 429 queue_full). */
export class QueueFullError extends Error {
  constructor(
    readonly sessionId: string,
    readonly limit: number,
  ) {
    super(`session ${sessionId} already has ${limit} inputs waiting`);
    this.name = "QueueFullError";
  }
}

/** The session has no input with this id (→ 404 input_unknown). */
export class InputUnknownError extends Error {
  constructor(
    readonly sessionId: string,
    readonly inputId: string,
  ) {
    super(`session ${sessionId} has no input ${inputId}`);
    this.name = "InputUnknownError";
  }
}

/** An input that was to be committed is no longer pending (cancelled, or committed twice). */
export class InputNotPendingError extends Error {
  constructor(
    readonly inputId: string,
    readonly delivery: string | null,
  ) {
    super(`input ${inputId} is not pending (delivery: ${delivery ?? "unknown input"})`);
    this.name = "InputNotPendingError";
  }
}

/** A turn could not move to the requested state (unknown turn, or it has ended already). */
export class TurnStateError extends Error {
  constructor(
    readonly turnId: string,
    readonly reason: string,
  ) {
    super(`turn ${turnId}: ${reason}`);
    this.name = "TurnStateError";
  }
}
