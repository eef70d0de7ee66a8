/**
 * Browser sign-in on the wire, as TypeBox schemas and the types derived from them: the login
 * link `POST /web/login-codes` issues and what `GET /web/session` says of who is signed in.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. The names
 * (path, header, cookie) are in ../browser-login.ts, which the web page loads.
 */
import { type Static, Type } from "typebox";
import { closedObject, literalUnion, NullableString, Time } from "./parts.js";

/** The answer of `POST /web/login-codes` (bearer token only): a link that signs one browser in. */
export const LoginLinkSchema = closedObject({
  /** The whole link, `http://127.0.0.1:<port>/login?code=…`. */
  url: Type.String(),
  /** RFC 3339: the link must be opened before this; it works once. */
  expires_at: Time,
});
export type LoginLink = Static<typeof LoginLinkSchema>;

/** The answer of `GET /web/session` (cookie or token): who is signed in, and the page's CSRF token. */
export const BrowserSessionSchema = closedObject({
  /** "cookie" for a browser signed in through a login link, "token" for a program. */
  auth: literalUnion("cookie", "token"),
  /** The value of `X-Skein-CSRF` for this cookie (null with the bearer token, which needs none). */
  csrf_token: NullableString,
  /** RFC 3339: when the cookie stops working (null with the bearer token). */
  expires_at: Type.Union([Time, Type.Null()]),
  /** Who the request acts as: the token's or device's name (`bootstrap` for the daemon's own). */
  name: Type.String(),
  /** What it may do (the page offers only what the role allows, e.g. Devices to an admin). */
  role: literalUnion("viewer", "approver", "driver", "admin"),
});
export type BrowserSession = Static<typeof BrowserSessionSchema>;
