/**
 * How the daemon's errors become problem JSON. Route handlers let errors propagate and
 * `answerWith` maps them here: a `DaemonError` through the catalogue's table (errors.ts), the
 * log's and the storage's own errors by what they mean for a client.
 *
 * Boundary rule: anything not recognised here is a bug and becomes a 500 in the app's handler
 * (logged, with no internals in the detail). A failure of the storage while answering is a 503
 * request_unavailable with nothing else in the body, and the daemon keeps serving.
 */
import { problemStatuses } from "../../api/problem.js";
import { LogCorruptError, SessionNotFoundError } from "../../log/errors.js";
import { SessionOwnedElsewhereError } from "../cluster/session-owned-elsewhere.js";
import { DaemonError, daemonErrorProblems } from "../errors.js";
import { ProblemError, problem } from "../http/problem.js";
import { WriteFencedError } from "../storage/session-storage.js";
import { isDatabaseError, isStorageUnavailable } from "../storage/storage-unavailable.js";

/** What a 503 tells a client to wait before trying again (seconds): storage back, a session moved. */
const storageRetryAfterSeconds = "1";

/** The problem for an error, or the error itself when it is not one a client caused or can retry. */
export function toDaemonProblem(error: unknown): unknown {
  if (error instanceof ProblemError) return error;
  if (error instanceof DaemonError) {
    const code = daemonErrorProblems[error.code];
    if (code === null) return error;
    // A full queue drains quickly, and a session that cannot be served now (its actor stopping,
    // the session moving between nodes) soon can: say when to try again.
    const retry = error.code === "queue_full" || problemStatuses[code] === 503;
    const headers = retry ? { headers: { "retry-after": storageRetryAfterSeconds } } : {};
    return problem(code, error.message, headers);
  }
  if (error instanceof SessionNotFoundError) {
    return problem("resource_not_found", `session ${error.sessionId} not found`);
  }
  if (error instanceof LogCorruptError) {
    return problem(
      "log_corrupt",
      `the log of session ${error.sessionId} fails verification at position ${error.position} (${error.reason}); it is not repaired automatically`,
    );
  }
  if (error instanceof SessionOwnedElsewhereError || error instanceof WriteFencedError) {
    // The session moved between nodes under this request: the next try reaches its owner.
    return problem("request_unavailable", error.message, {
      headers: { "retry-after": storageRetryAfterSeconds },
    });
  }
  if (isDatabaseError(error) || isStorageUnavailable(error)) {
    // The database restarting or unreachable: the same request succeeds once it is back.
    return problem("request_unavailable", "storage could not answer this request; try again later", {
      headers: { "retry-after": storageRetryAfterSeconds },
    });
  }
  return error;
}

/** Run a handler and rethrow its errors as problems. */
export async function answerWith<T>(handler: () => Promise<T> | T): Promise<T> {
  try {
    return await handler();
  } catch (error) {
    throw toDaemonProblem(error);
  }
}
