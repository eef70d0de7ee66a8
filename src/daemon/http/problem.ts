/**
 * Problem JSON (RFC 9457 shape): the body of every 4xx/5xx answer of the daemon.
 *
 * Boundary rule: the closed list of error codes and their statuses lives here and nowhere
 * else. Route code throws `ProblemError`; the app's error handler (create-http-app.ts) renders
 * it with `Content-Type: application/problem+json`. A detail is a human sentence that must not
 * leak internals (stack traces, SQL, file paths of other users).
 */

/** Every problem code the daemon answers with, and its HTTP status. */
export const problemStatuses = {
  invalid_request: 400,
  message_empty: 400,
  identity_future: 400,
  authentication_required: 401,
  host_forbidden: 403,
  origin_forbidden: 403,
  resource_not_found: 404,
  input_unknown: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  input_conflict: 409,
  session_busy: 409,
  instance_changed: 409,
  continuation_expired: 410,
  identity_expired: 410,
  precondition_failed: 412,
  request_body_too_large: 413,
  unsupported_media_type: 415,
  unsupported_encoding: 415,
  expectation_failed: 417,
  precondition_required: 428,
  queue_full: 429,
  request_headers_too_large: 431,
  log_corrupt: 500,
  internal_error: 500,
  request_unavailable: 503,
  daemon_unavailable: 503,
} as const satisfies Record<string, number>;

/** A problem code: the HTTP contract's codes plus the ones the daemon's routes and ingress need. */
export type ProblemCode = keyof typeof problemStatuses;

/** Media type of every error body. */
export const problemContentType = "application/problem+json";

/** The wire body of a problem. */
export interface ProblemBody {
  type: "about:blank";
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
}

const titles: Record<ProblemCode, string> = {
  invalid_request: "Invalid request",
  message_empty: "Empty message",
  identity_future: "Identity in the future",
  authentication_required: "Authentication required",
  host_forbidden: "Host forbidden",
  origin_forbidden: "Origin forbidden",
  resource_not_found: "Resource not found",
  input_unknown: "Input unknown",
  method_not_allowed: "Method not allowed",
  not_acceptable: "Not acceptable",
  request_timeout: "Request timeout",
  input_conflict: "Input conflict",
  session_busy: "Session busy",
  instance_changed: "Instance changed",
  continuation_expired: "Continuation expired",
  identity_expired: "Identity expired",
  precondition_failed: "Precondition failed",
  request_body_too_large: "Request body too large",
  unsupported_media_type: "Unsupported media type",
  unsupported_encoding: "Unsupported encoding",
  expectation_failed: "Expectation failed",
  precondition_required: "Precondition required",
  queue_full: "Queue full",
  request_headers_too_large: "Request headers too large",
  log_corrupt: "Log corrupt",
  internal_error: "Internal error",
  request_unavailable: "Request unavailable",
  daemon_unavailable: "Daemon unavailable",
};

/** Extra parts of a problem answer. */
export interface ProblemOptions {
  /** Response headers, e.g. `Allow` for 405 or `Retry-After` for 503. */
  headers?: Record<string, string>;
  /** Overrides the code's default title. */
  title?: string;
  cause?: unknown;
}

/** A failure that becomes a problem JSON answer. */
export class ProblemError extends Error {
  readonly headers: Readonly<Record<string, string>>;
  readonly title: string;

  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    options: ProblemOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProblemError";
    this.headers = options.headers ?? {};
    this.title = options.title ?? titles[code];
  }

  /** The JSON body of this problem. */
  body(): ProblemBody {
    return problemBody(this.status, this.code, this.detail, this.title);
  }
}

/** A ProblemError with the code's standard status. */
export function problem(code: ProblemCode, detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError(problemStatuses[code], code, detail, options);
}

/** The wire body for a problem (title defaults to the code's title). */
export function problemBody(status: number, code: ProblemCode, detail: string, title?: string): ProblemBody {
  return { type: "about:blank", title: title ?? titles[code], status, detail, code };
}

/** The 401 for a missing, repeated or wrong token; the connection closes. */
export function authenticationRequired(): ProblemError {
  return problem("authentication_required", "a valid `Authorization: Bearer <token>` header is required", {
    headers: { "www-authenticate": "Bearer", connection: "close" },
  });
}

/** The 413 for a body over `limit` bytes; the connection closes, so an unread rest is never waited for. */
export function requestBodyTooLarge(limit: number): ProblemError {
  return problem("request_body_too_large", `the request body exceeds ${limit} bytes`, {
    headers: { connection: "close" },
  });
}

/** The 503 answered to work-starting requests while the daemon drains. */
export function daemonUnavailable(): ProblemError {
  return problem("daemon_unavailable", "the daemon is shutting down and accepts no new work", {
    headers: { "retry-after": "1" },
  });
}
