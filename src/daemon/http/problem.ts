/**
 * Problems raised by the daemon: route code throws `ProblemError`; the app's error handler
 * (create-http-app.ts) renders it with `Content-Type: application/problem+json`.
 *
 * Boundary rule: the closed list of codes, their statuses and titles, and the body's shape are
 * the contract's (src/api/problem.ts); this file only raises them. A detail is a human sentence
 * that must not leak internals (stack traces, SQL, file paths of other users).
 */
import { type ProblemBody, type ProblemCode, problemStatuses, problemTitles } from "../../api/problem.js";

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
    this.title = options.title ?? problemTitles[code];
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
  return { type: "about:blank", title: title ?? problemTitles[code], status, detail, code };
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
