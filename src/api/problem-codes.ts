/**
 * The closed list of the daemon's problem codes, with their HTTP statuses and titles, and the
 * media type of every error body.
 *
 * Boundary rule: the list lives here and nowhere else; the problem schema is built from it
 * (schemas/problem.ts), the daemon raises problems with these codes (src/daemon/http/problem.ts)
 * and a client reads them (`DaemonApiError.code`).
 */

/** Every problem code the daemon answers with, and its HTTP status. */
export const problemStatuses = {
  invalid_request: 400,
  message_empty: 400,
  identity_future: 400,
  authentication_required: 401,
  login_code_invalid: 401,
  pairing_code_invalid: 401,
  host_forbidden: 403,
  origin_forbidden: 403,
  csrf_token_invalid: 403,
  role_forbidden: 403,
  session_forbidden: 403,
  resource_not_found: 404,
  input_unknown: 404,
  approval_unknown: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  input_conflict: 409,
  session_busy: 409,
  approval_conflict: 409,
  nothing_to_compact: 409,
  budget_exhausted: 409,
  instance_changed: 409,
  config_not_shared: 409,
  schedule_exists: 409,
  token_exists: 409,
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

/** A problem code. */
export type ProblemCode = keyof typeof problemStatuses;

/** The title each code's problems carry unless the daemon gives a more specific one. */
export const problemTitles: Readonly<Record<ProblemCode, string>> = {
  invalid_request: "Invalid request",
  message_empty: "Empty message",
  identity_future: "Identity in the future",
  authentication_required: "Authentication required",
  login_code_invalid: "Login link invalid",
  pairing_code_invalid: "Pairing link invalid",
  host_forbidden: "Host forbidden",
  origin_forbidden: "Origin forbidden",
  csrf_token_invalid: "CSRF token invalid",
  role_forbidden: "Role forbidden",
  session_forbidden: "Session forbidden",
  resource_not_found: "Resource not found",
  input_unknown: "Input unknown",
  approval_unknown: "Approval unknown",
  method_not_allowed: "Method not allowed",
  not_acceptable: "Not acceptable",
  request_timeout: "Request timeout",
  input_conflict: "Input conflict",
  session_busy: "Session busy",
  approval_conflict: "Approval conflict",
  nothing_to_compact: "Nothing to compact",
  budget_exhausted: "Budget exhausted",
  instance_changed: "Instance changed",
  config_not_shared: "Config not shared",
  schedule_exists: "Schedule exists",
  token_exists: "Token exists",
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

/** Media type of every error body. */
export const problemContentType = "application/problem+json";
