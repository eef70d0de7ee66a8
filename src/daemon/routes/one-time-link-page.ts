/**
 * What the two one-time links a browser opens (a login link, a device's pairing link) answer:
 * a small page whose form posts the code, the page that says a code is spent, and the redirect
 * that sets the session cookie once the post spent it.
 *
 * Why a page and a post: a GET must change nothing. A link shared through a chat is fetched
 * first by the chat's link previewer, which would otherwise spend the code and keep the cookie.
 *
 * Boundary rule: answers only; the routes (login-route.ts, pairing-route.ts) spend the codes.
 * The pages hold no style and no inline script (the CSP of page-headers.ts allows neither).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { sessionCookieName } from "../../api/browser-login.js";
import type { ProblemCode } from "../../api/problem.js";
import { pageSecurityHeaders } from "../http/page-headers.js";
import { problem } from "../http/problem.js";

/** The query of a one-time link: the code, in the base64url the daemon issues (it is put into the page). */
export const OneTimeCodeQuery = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 256, pattern: "^[A-Za-z0-9_-]+$" }) },
  { additionalProperties: false },
);

/**
 * A whole HTML page: `title`, then `body` (trusted markup); `head` adds to its head. Its empty
 * icon keeps the browser from asking for /favicon.ico, which is no route (a 401 in the console).
 */
export function htmlPage(title: string, body: string, head = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>${title}</title>${head}</head>
<body>${body}</body></html>
`;
}

/** Send `html` with the page headers, never cached. */
export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return (
    reply
      .code(status)
      .headers(pageSecurityHeaders)
      .header("content-type", "text/html; charset=utf-8")
      .header("cache-control", "no-store")
      // With no-referrer a browser posts the page's form with `Origin: null`, which the origin
      // check refuses; same-origin still sends the link to nobody else.
      .header("referrer-policy", "same-origin")
      .send(html)
  );
}

/** A spent code's answer: the page `spentPage` to a browser, else the problem `code` (both 401). */
export function refuseSpentCode(
  request: FastifyRequest,
  reply: FastifyReply,
  refusal: { code: ProblemCode; detail: string; spentPage: string },
): FastifyReply {
  if (!(request.headers.accept ?? "").includes("text/html")) throw problem(refusal.code, refusal.detail);
  return sendPage(reply, 401, refusal.spentPage);
}

/** 303 to `/` that sets the session cookie of `port` to `cookieValue` for `maxAgeSeconds`. */
export function signedInRedirect(
  reply: FastifyReply,
  cookie: { port: number; value: string; maxAgeSeconds: number },
): FastifyReply {
  return reply
    .code(303)
    .headers(pageSecurityHeaders)
    .header("cache-control", "no-store")
    .header(
      "set-cookie",
      `${sessionCookieName(cookie.port)}=${cookie.value}; Path=/; Max-Age=${cookie.maxAgeSeconds}; HttpOnly; SameSite=Strict`,
    )
    .header("location", "/")
    .send();
}
