/**
 * Errors of the daemon client. An answer with a 4xx/5xx status becomes a `DaemonApiError`
 * carrying the problem JSON's code and detail; a daemon that cannot be reached (no
 * daemon.json, nothing listening, a foreign process on its port) is a `DaemonUnreachableError`;
 * an answer that does not follow the protocol is a `DaemonProtocolError`.
 *
 * Boundary rule: error types and problem parsing only; no I/O.
 */

/** The daemon answered with problem JSON (or at least with an error status). */
export class DaemonApiError extends Error {
  constructor(
    readonly status: number,
    /** The problem `code` (e.g. "resource_not_found"); "http_<status>" when the body had none. */
    readonly code: string,
    /** The problem's human sentence. */
    readonly detail: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(detail);
    this.name = "DaemonApiError";
  }
}

/** No daemon answers for the home; `reason` says what was found instead. */
export class DaemonUnreachableError extends Error {
  constructor(
    readonly home: string | null,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      home === null
        ? `the Skein daemon is unreachable: ${reason}`
        : `no Skein daemon answers for ${home}: ${reason}`,
      options,
    );
    this.name = "DaemonUnreachableError";
  }
}

/** The daemon's answer does not follow the protocol (not JSON, wrong shape). */
export class DaemonProtocolError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    reason: string,
  ) {
    super(`unexpected answer to ${method} ${path}: ${reason}`);
    this.name = "DaemonProtocolError";
  }
}

/** A DaemonApiError from an error answer; the problem JSON is used when it parses. */
export function apiErrorFrom(status: number, body: string, method: string, path: string): DaemonApiError {
  let code = `http_${status}`;
  let detail = body.trim().slice(0, 500) || `HTTP ${status}`;
  try {
    const parsed = JSON.parse(body) as { code?: unknown; detail?: unknown; title?: unknown };
    if (typeof parsed.code === "string") code = parsed.code;
    if (typeof parsed.detail === "string" && parsed.detail !== "") detail = parsed.detail;
    else if (typeof parsed.title === "string") detail = parsed.title;
  } catch {
    // not problem JSON: keep the raw text
  }
  return new DaemonApiError(status, code, detail, method, path);
}
