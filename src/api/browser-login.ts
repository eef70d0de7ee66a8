/**
 * Browser sign-in: the one-time login links `skein web` prints, the session cookie a link sets,
 * and the CSRF token a page sends with every request that changes something.
 *
 * Boundary rule: names and wire shapes only. The daemon issues and checks them
 * (src/daemon/http/browser-logins.ts); the CLI asks for a link through `skein/client`.
 */

/** The path a login link opens: `GET /login?code=…` sets the cookie and redirects to `/`. */
export const loginPath = "/login";

/** The header a page signed in by cookie sends with every request but GET and HEAD. */
export const csrfHeaderName = "x-skein-csrf";

/**
 * The session cookie's name. It carries the daemon's port because browsers share cookies
 * between the ports of one host: two daemons on one machine must not overwrite each other's.
 */
export function sessionCookieName(port: number): string {
  return `skein_session_${port}`;
}

/** The answer of `POST /web/login-codes` (bearer token only): a link that signs one browser in. */
export interface LoginLink {
  /** The whole link, `http://127.0.0.1:<port>/login?code=…`. */
  url: string;
  /** RFC 3339: the link must be opened before this; it works once. */
  expires_at: string;
}

/** The answer of `GET /web/session` (cookie or token): who is signed in, and the page's CSRF token. */
export interface BrowserSession {
  /** "cookie" for a browser signed in through a login link, "token" for a program. */
  auth: "cookie" | "token";
  /** The value of `X-Skein-CSRF` for this cookie (null with the bearer token, which needs none). */
  csrf_token: string | null;
  /** RFC 3339: when the cookie stops working (null with the bearer token). */
  expires_at: string | null;
}
