/**
 * The daemon's error catalogue: every error a request can meet in the session, storage,
 * history and stream code, each with a stable code and the context it is about, and the table
 * that says which problem (if any) a route answers for each code.
 *
 * Boundary rule: errors are plain classes here and nowhere else in those folders (the ones
 * that carry only a session id come from one factory); a route maps a `DaemonError` through
 * `problemFor` (daemon-problem.ts), never by `instanceof` one by one. A code whose problem is null is a bug when it reaches a route (500, logged). Failures of
 * the process at start (settings, home, lock, key, database version) live in `process/` and
 * `storage/database.ts`: they end the start, they never reach a route.
 *
 * "Session not found" is one error everywhere, the log's `SessionNotFoundError` (what every
 * store throws for a session it has no log of): the daemon throws it too for a session with no
 * row, and daemon-problem.ts answers it 404 `resource_not_found`.
 */
import type { ProblemCode } from "../api/problem.js";
import type { ApprovalDecision } from "../model/approval-policy.js";

/** Each code, and the problem a route answers for it (null: not the client's doing). */
export const daemonErrorProblems = {
  session_exists: "precondition_failed",
  session_busy: "session_busy",
  compaction_running: "session_busy",
  nothing_to_compact: "nothing_to_compact",
  budget_exhausted: "budget_exhausted",
  provider_missing: "invalid_request",
  session_unavailable: "request_unavailable",
  actor_stopped: "request_unavailable",
  daemon_draining: "daemon_unavailable",
  input_unknown: "input_unknown",
  input_conflict: "input_conflict",
  queue_full: "queue_full",
  input_not_pending: null,
  input_not_fresh: null,
  approval_unknown: "approval_unknown",
  approval_conflict: "approval_conflict",
  approval_answer_invalid: "invalid_request",
  turn_state: null,
  checkpoint_unknown: "invalid_request",
  profile_unknown: "invalid_request",
  history_query_invalid: "invalid_request",
  history_token_invalid: "invalid_request",
  history_token_expired: "continuation_expired",
  entry_content_unknown: "resource_not_found",
  text_offset_invalid: "invalid_request",
  stream_cursor_invalid: "invalid_request",
  repair_range_invalid: "invalid_request",
} as const satisfies Record<string, ProblemCode | null>;

/** A daemon error's stable code. */
export type DaemonErrorCode = keyof typeof daemonErrorProblems;

/** Every error of the catalogue: a stable code, a sentence for a person, context as fields. */
export abstract class DaemonError extends Error {
  abstract readonly code: DaemonErrorCode;
}

/**
 * The class of an error about one session that keeps nothing but the session's id: its code,
 * its name, and the sentence a person reads, made of the id and any `details` the constructor
 * takes after it. As a type, such an error is `InstanceType<typeof ItsClass>`.
 */
function sessionErrorClass<const C extends DaemonErrorCode, D extends string[] = []>(
  code: C,
  name: string,
  message: (sessionId: string, ...details: D) => string,
) {
  return class extends DaemonError {
    readonly code: C = code;
    constructor(
      readonly sessionId: string,
      ...details: D
    ) {
      super(message(sessionId, ...details));
      this.name = name;
    }
  };
}

/** A session with this id exists already (create → 412). */
export const SessionExistsError = sessionErrorClass(
  "session_exists",
  "SessionExistsError",
  (id) => `session ${id} already exists`,
);

/** The session cannot take the request now: a turn runs (409 session_busy). */
export const SessionBusyError = sessionErrorClass(
  "session_busy",
  "SessionBusyError",
  (id) => `session ${id} is running a turn; interrupt it or wait until it is idle`,
);

/** A compaction of the session is running already (409 session_busy). */
export const CompactionRunningError = sessionErrorClass(
  "compaction_running",
  "CompactionRunningError",
  (id) => `session ${id} is compacting its context already; wait for compaction_completed`,
);

/** A compaction would summarize nothing: the turns it keeps whole are all there is (409). */
export class NothingToCompactError extends DaemonError {
  readonly code = "nothing_to_compact";
  constructor(
    readonly sessionId: string,
    readonly contextTokens: number,
  ) {
    super(
      `session ${sessionId} has nothing to compact: its context (about ${contextTokens} tokens) is only the turns a compaction keeps whole`,
    );
    this.name = "NothingToCompactError";
  }
}

/** A budget that applies to the session has nothing left for a compaction's summary requests (409). */
export const CompactionOverBudgetError = sessionErrorClass(
  "budget_exhausted",
  "CompactionOverBudgetError",
  (id, refusal: string) => `session ${id} cannot be compacted: ${refusal}`,
);

/** No provider is configured for the session, so no model can write a summary (400). */
export const ProviderMissingError = sessionErrorClass(
  "provider_missing",
  "ProviderMissingError",
  (id, detail: string) => `session ${id} cannot be compacted: ${detail}`,
);

/** The session exists but its actor could not be kept running for this request (503). */
export const SessionUnavailableError = sessionErrorClass(
  "session_unavailable",
  "SessionUnavailableError",
  (id) => `session ${id} is restarting; try again`,
);

/**
 * The daemon drains: no session is loaded any more (→ 503 daemon_unavailable). A stream that
 * reconnects meanwhile must not bring a session back to life under a stopping daemon.
 */
export const DaemonDrainingError = sessionErrorClass(
  "daemon_draining",
  "DaemonDrainingError",
  (id) => `the daemon is shutting down; session ${id} is not loaded again until it restarts`,
);

/**
 * The actor stopped (deleted, unloaded, restarted, its lease lost) under the request; the
 * caller looks the session up again. Never "not found": a session without a row is the log's
 * `SessionNotFoundError`, wherever that is noticed.
 */
export const ActorStoppedError = sessionErrorClass(
  "actor_stopped",
  "ActorStoppedError",
  (id) => `session ${id} is restarting; try again`,
);

/** The session has no input with this id (→ 404 input_unknown). */
export class InputUnknownError extends DaemonError {
  readonly code = "input_unknown";
  constructor(
    readonly sessionId: string,
    readonly inputId: string,
  ) {
    super(`session ${sessionId} has no input ${inputId}`);
    this.name = "InputUnknownError";
  }
}

/** The input id is taken by another intent or by another session's input (→ 409 input_conflict). */
export class InputConflictError extends DaemonError {
  readonly code = "input_conflict";
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
export class QueueFullError extends DaemonError {
  readonly code = "queue_full";
  constructor(
    readonly sessionId: string,
    readonly limit: number,
  ) {
    super(`session ${sessionId} already has ${limit} inputs waiting`);
    this.name = "QueueFullError";
  }
}

/** An input that was to be committed is no longer pending (cancelled, or committed twice). */
export class InputNotPendingError extends DaemonError {
  readonly code = "input_not_pending";
  constructor(
    readonly inputId: string,
    readonly delivery: string | null,
  ) {
    super(`input ${inputId} is not pending (delivery: ${delivery ?? "unknown input"})`);
    this.name = "InputNotPendingError";
  }
}

/**
 * An input to be admitted together with its turn's start was not new (a retry, or an id of
 * another session) or would not get the order expected: the write rolls back and the caller
 * admits the input the usual way, which answers whatever applies.
 */
export class InputNotFreshError extends DaemonError {
  readonly code = "input_not_fresh";
  constructor(
    readonly sessionId: string,
    readonly inputId: string,
    readonly reason: string,
  ) {
    super(`session ${sessionId}: input ${inputId} cannot start a turn with its admission (${reason})`);
    this.name = "InputNotFreshError";
  }
}

/** A turn could not move to the requested state (unknown turn, or it has ended already). */
export class TurnStateError extends DaemonError {
  readonly code = "turn_state";
  constructor(
    readonly turnId: string,
    readonly reason: string,
  ) {
    super(`turn ${turnId}: ${reason}`);
    this.name = "TurnStateError";
  }
}

/** A session names a provider profile that config.json does not have (→ 400). */
export class ProfileUnknownError extends DaemonError {
  readonly code = "profile_unknown";
  constructor(readonly profileName: string) {
    super(`provider profile "${profileName}" is not configured; see \`skein config list\``);
    this.name = "ProfileUnknownError";
  }
}

/** A fork names a checkpoint the source session does not have (→ 400). */
export class CheckpointUnknownError extends DaemonError {
  readonly code = "checkpoint_unknown";
  constructor(
    readonly sessionId: string,
    readonly checkpointId: string,
  ) {
    super(`session ${sessionId} has no history entry with checkpoint_id ${JSON.stringify(checkpointId)}`);
    this.name = "CheckpointUnknownError";
  }
}

/** A history query that cannot be answered as asked (→ 400). */
export class HistoryQueryInvalidError extends DaemonError {
  readonly code = "history_query_invalid";
  constructor(reason: string) {
    super(reason);
    this.name = "HistoryQueryInvalidError";
  }
}

/** A history continuation token that is not one of this daemon's for this page (→ 400). */
export class HistoryTokenInvalidError extends DaemonError {
  readonly code = "history_token_invalid";
  constructor(readonly reason: string) {
    super(`history continuation is invalid: ${reason}`);
    this.name = "HistoryTokenInvalidError";
  }
}

/** A genuine token older than the TTL (→ 410 continuation_expired). */
export class HistoryTokenExpiredError extends DaemonError {
  readonly code = "history_token_expired";
  constructor(
    readonly issuedAt: number,
    readonly ttlMs: number,
  ) {
    super(`history continuation expired (issued ${new Date(issuedAt).toISOString()}, valid for ${ttlMs} ms)`);
    this.name = "HistoryTokenExpiredError";
  }
}

/** A content ref that names no entry or part of the session (→ 404). */
export class EntryContentUnknownError extends DaemonError {
  readonly code = "entry_content_unknown";
  constructor(
    readonly sessionId: string,
    readonly entryId: string,
    readonly part: number,
  ) {
    super(`session ${sessionId} has no history entry ${entryId} with a content part ${part}`);
    this.name = "EntryContentUnknownError";
  }
}

/** A content slice offset past the end or inside a character (→ 400). */
export class TextOffsetError extends DaemonError {
  readonly code = "text_offset_invalid";
  constructor(
    readonly offset: number,
    readonly length: number,
  ) {
    super(
      offset > length
        ? `offset ${offset} is past the end of the content (${length} bytes)`
        : `offset ${offset} falls inside a character; use the next_offset of the previous slice`,
    );
    this.name = "TextOffsetError";
  }
}

/** A stream cursor (query or Last-Event-ID) that does not parse (→ 400, never a silent initial attach). */
export class StreamCursorError extends DaemonError {
  readonly code = "stream_cursor_invalid";
  constructor(
    /** The parameter or header at fault. */
    readonly parameter: "after_generation" | "after_seq" | "Last-Event-ID",
    readonly detail: string,
  ) {
    super(detail);
    this.name = "StreamCursorError";
  }
}

/** The session has no call with this id that waits for an answer or was answered (→ 404 approval_unknown). */
export class ApprovalUnknownError extends DaemonError {
  readonly code = "approval_unknown";
  constructor(
    readonly sessionId: string,
    readonly callId: string,
  ) {
    super(`session ${sessionId} has no tool call ${JSON.stringify(callId)} waiting for approval`);
    this.name = "ApprovalUnknownError";
  }
}

/** The call was answered already, with the other decision (→ 409 approval_conflict). */
export class ApprovalConflictError extends DaemonError {
  readonly code = "approval_conflict";
  constructor(
    readonly sessionId: string,
    readonly callId: string,
    readonly recorded: ApprovalDecision,
  ) {
    super(`tool call ${JSON.stringify(callId)} of session ${sessionId} was already answered: ${recorded}`);
    this.name = "ApprovalConflictError";
  }
}

/** An answer that cannot apply to this call, e.g. an ask_user answer without its text (→ 400). */
export class ApprovalAnswerInvalidError extends DaemonError {
  readonly code = "approval_answer_invalid";
  constructor(
    readonly sessionId: string,
    readonly callId: string,
    reason: string,
  ) {
    super(`tool call ${JSON.stringify(callId)} of session ${sessionId}: ${reason}`);
    this.name = "ApprovalAnswerInvalidError";
  }
}

/** A repair names entries the session does not have, or none whose items are in the context (400). */
export const RepairRangeInvalidError = sessionErrorClass(
  "repair_range_invalid",
  "RepairRangeInvalidError",
  (id, detail: string) => `session ${id} cannot be repaired so: ${detail}`,
);
