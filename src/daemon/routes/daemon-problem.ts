/**
 * How the daemon's domain errors become problem JSON. Route handlers let errors propagate and
 * `answerWith` maps them here, so each error type is mapped once.
 *
 * Boundary rule: anything not recognised here is a bug and becomes a 500 in the app's handler
 * (logged, with no internals in the detail). A failure of the database while answering is a
 * 503 request_unavailable with nothing else in the body, and the daemon keeps serving.
 */
import { LogCorruptError, SessionNotFoundError } from "../../log/errors.js";
import { EntryContentUnknownError } from "../history/entry-content.js";
import { HistoryQueryInvalidError } from "../history/history-page.js";
import { HistoryTokenExpiredError, HistoryTokenInvalidError } from "../history/history-token.js";
import { TextOffsetError } from "../history/text-slice.js";
import { ProblemError, problem } from "../http/problem.js";
import { CheckpointUnknownError } from "../session/fork-plan.js";
import { ActorStoppedError, SessionBusyError } from "../session/session-actor.js";
import { SessionUnavailableError, SessionUnknownError } from "../session/session-registry.js";
import {
  InputConflictError,
  InputUnknownError,
  QueueFullError,
  SessionExistsError,
  SessionUnknownError as SessionRowUnknownError,
} from "../storage/errors.js";
import { isSqliteError, isStorageUnavailable } from "../storage/storage-unavailable.js";

/** The problem for a domain error, or the error itself when it is not one of ours. */
export function toDaemonProblem(error: unknown): unknown {
  if (error instanceof ProblemError) return error;
  if (
    error instanceof SessionUnknownError ||
    error instanceof SessionRowUnknownError ||
    error instanceof SessionNotFoundError ||
    error instanceof ActorStoppedError
  ) {
    return problem("resource_not_found", `session ${error.sessionId} not found`);
  }
  if (error instanceof InputUnknownError) return problem("input_unknown", error.message);
  if (error instanceof InputConflictError) return problem("input_conflict", error.message);
  if (error instanceof QueueFullError)
    return problem("queue_full", error.message, { headers: { "retry-after": "1" } });
  if (error instanceof SessionBusyError) return problem("session_busy", error.message);
  if (error instanceof SessionExistsError) return problem("precondition_failed", error.message);
  if (error instanceof CheckpointUnknownError) return problem("invalid_request", error.message);
  if (error instanceof HistoryQueryInvalidError) return problem("invalid_request", error.message);
  if (error instanceof HistoryTokenInvalidError) return problem("invalid_request", error.message);
  if (error instanceof HistoryTokenExpiredError) return problem("continuation_expired", error.message);
  if (error instanceof EntryContentUnknownError) return problem("resource_not_found", error.message);
  if (error instanceof TextOffsetError) return problem("invalid_request", error.message);
  if (error instanceof LogCorruptError) {
    return problem(
      "log_corrupt",
      `the log of session ${error.sessionId} fails verification at position ${error.position} (${error.reason}); it is not repaired automatically`,
    );
  }
  if (error instanceof SessionUnavailableError) return problem("request_unavailable", error.message);
  if (isSqliteError(error) || isStorageUnavailable(error)) {
    return problem("request_unavailable", "storage could not answer this request; try again later");
  }
  return error;
}

/** Run a handler and rethrow its domain errors as problems. */
export async function answerWith<T>(handler: () => Promise<T> | T): Promise<T> {
  try {
    return await handler();
  } catch (error) {
    throw toDaemonProblem(error);
  }
}
