/**
 * The two one-time links a browser opens (a login link, a device's pairing link): `GET` answers
 * a small page whose form posts the code, `POST` spends it, then the redirect that sets the
 * session cookie, or the page that says a code is spent.
 *
 * Why a page and a post: a GET must change nothing. A link shared through a chat is fetched
 * first by the chat's link previewer, which would otherwise spend the code and keep the cookie.
 *
 * Boundary rule: registration and answers; each link's route (login-route.ts, pairing-route.ts)
 * writes its pages and spends its codes. The pages hold no style and no inline script (the CSP
 * of page-headers.ts allows neither).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { sessionCookieName } from "../../api/browser-login.js";
import type { ProblemCode } from "../../api/problem.js";
import type { HttpApp } from "../http/create-http-app.js";
import { pageSecurityHeaders } from "../http/page-headers.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";

/** The query of a one-time link: the code, in the base64url the daemon issues (it is put into the page). */
const OneTimeCodeQuery = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 256, pattern: "^[A-Za-z0-9_-]+$" }) },
  { additionalProperties: false },
);

/** What one link's two routes say (OpenAPI) and do. */
export interface OneTimeLink {
  /** `GET`: the page for `code`, spending nothing. */
  page: { summary: string; description: string; html(code: string): string };
  /** `POST`: spend `code`; the description says what 303 and 401 mean. */
  spend: {
    summary: string;
    description: string;
    answer(request: FastifyRequest, reply: FastifyReply, code: string): Promise<FastifyReply>;
  };
}

/** Register `GET path?code=…` (the page) and `POST path?code=…` (no body, or a form without fields). */
export function registerOneTimeLink(app: HttpApp, path: string, link: OneTimeLink): void {
  const codeOf = (request: FastifyRequest) => (request.query as { code: string }).code;
  registerResource(app, path, {
    GET: {
      schema: {
        querystring: OneTimeCodeQuery,
        response: {
          200: { description: link.page.description, content: { "text/html": { schema: Type.String() } } },
        },
      },
      config: { public: true, page: true, doc: { summary: link.page.summary } },
      handler: async (request, reply) => sendPage(reply, 200, link.page.html(codeOf(request))),
    },
    POST: {
      schema: {
        querystring: OneTimeCodeQuery,
        response: { 303: Type.Null({ description: link.spend.description }) },
      },
      config: { public: true, page: true, emptyFormPost: true, doc: { summary: link.spend.summary } },
      handler: (request, reply) => link.spend.answer(request, reply, codeOf(request)),
    },
  });
}

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
function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
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
