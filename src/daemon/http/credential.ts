/**
 * What a request was authenticated with, as the ingress hook found it: the bearer token, a
 * browser login's cookie, or nothing on a public route. Routes that depend on it (`GET
 * /web/session`, logout) read it here.
 *
 * Boundary rule: a per-request record only; deciding is create-http-app.ts's.
 */
import type { IncomingMessage } from "node:http";
import type { CookieLogin } from "./browser-logins.js";

/** How a request proved who sent it. */
export type Credential =
  | { kind: "token" }
  | { kind: "cookie"; login: CookieLogin }
  /** A public route (the page shell, its assets, the login link), reached without either. */
  | { kind: "none" };

const credentials = new WeakMap<IncomingMessage, Credential>();

/** Remember what `request` was authenticated with. */
export function recordCredential(request: IncomingMessage, credential: Credential): void {
  credentials.set(request, credential);
}

/** What `request` was authenticated with (`none` before the ingress hook ran). */
export function credentialOf(request: IncomingMessage): Credential {
  return credentials.get(request) ?? { kind: "none" };
}
