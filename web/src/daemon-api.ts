/**
 * The page's requests to the daemon that serves it: same origin, signed in by the HttpOnly
 * cookie (sent by the browser itself), with the login's CSRF token on every request that
 * changes something. Error answers (problem JSON) become `ApiError`.
 */
import type { BrowserSession } from "../../src/api/browser-login.js";
import { csrfHeaderName } from "../../src/api/browser-login.js";
import type { ProblemBody } from "../../src/api/problem.js";

/** A problem answer of the daemon (or a failure to reach it). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

let csrfToken: string | null = null;

/** Who is signed in (and the CSRF token to send), or null when this browser is not signed in. */
export async function loadBrowserSession(): Promise<BrowserSession | null> {
  try {
    const session = await call<BrowserSession>("GET", "/web/session");
    csrfToken = session.csrf_token;
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/** One JSON request; resolves with the answer's body (undefined for 204). */
export async function call<T>(
  method: "GET" | "PUT" | "POST" | "DELETE",
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const sent: Record<string, string> = { accept: "application/json", ...headers };
  if (body !== undefined) sent["content-type"] = "application/json";
  if (method !== "GET" && csrfToken !== null) sent[csrfHeaderName] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: sent,
      credentials: "same-origin",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new ApiError(0, "unreachable", `the daemon cannot be reached (${String(error)})`);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  if (!response.ok) {
    let problem: Partial<ProblemBody> = {};
    try {
      problem = JSON.parse(text) as Partial<ProblemBody>;
    } catch {
      // not problem JSON
    }
    throw new ApiError(response.status, problem.code ?? "http_error", problem.detail ?? response.statusText);
  }
  return JSON.parse(text) as T;
}

/** Sign this browser out. */
export async function logout(): Promise<void> {
  await call<void>("POST", "/web/logout");
  csrfToken = null;
}
