/**
 * Browser sign-in: the one-time login links `skein web` prints, the session cookie a link sets,
 * and the CSRF token a page sends with every request that changes something.
 *
 * Boundary rule: names, and the wire types (each the static type of its schema in
 * schemas/browser-login.ts). The daemon issues and checks them (src/daemon/http/browser-logins.ts);
 * the CLI asks for a link through `skein/client`; the web page loads this file.
 */

export type { BrowserSession, LoginLink } from "./schemas/browser-login.js";

/** The path a login link opens: `GET /login?code=…` shows a page whose `POST` sets the cookie and redirects to `/`. */
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
