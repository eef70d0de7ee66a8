/**
 * The ingress checks every request meets before its body is read (1-10 of create-http-app.ts),
 * in one `onRequest` hook, and the checks of the body a route takes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyRequest } from "fastify";
import { cachedEntry } from "../../model/cached-entry.js";
import { negotiate } from "./accept.js";
import { credentialOf } from "./credential.js";
import type { HttpApp } from "./http-app.js";
import { isJsonMediaType, parseJsonBody } from "./json-body.js";
import { daemonUnavailable, problem, requestBodyTooLarge } from "./problem.js";
import { bodyLimitOf, notFound } from "./problem-answers.js";
import { checkQuery, queryNamesOfSchema } from "./query.js";
import { checkRouteAccess } from "./route-access.js";

/** Who sends the request: token or cookie, Host, origin, CSRF (the first three checks); rejects. */
export type AuthorityCheck = (request: FastifyRequest, isPublic?: boolean) => Promise<void>;

/** Install the `onRequest` hook that refuses a request failing any check before its body. */
export function installIngressChecks(
  app: HttpApp,
  checkAuthority: AuthorityCheck,
  isDraining: (() => boolean) | undefined,
): void {
  const allowedQuery = allowedQueryOfRoutes();
  app.addHook("onRequest", async (request) => {
    const config = request.routeOptions.config;
    await checkAuthority(request, !request.is404 && config.public === true);
    checkExpectation(request.headers.expect);
    // Here, not in the 404 handler: Fastify would read and check the body before calling it.
    if (request.is404) throw notFound(request);
    // The 405 placeholders answer next; nothing else about the request matters.
    if (config.allow !== undefined) return;
    checkRouteAccess(request, credentialOf(request.raw));
    const encoding = request.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      throw problem(
        "unsupported_encoding",
        `Content-Encoding ${encoding} is not supported; send the body uncompressed`,
      );
    }
    checkQuery(request.query, allowedQuery(request));
    if (config.page !== true && negotiate(request.headers.accept, config.eventStream === true) === null) {
      throw problem(
        "not_acceptable",
        config.eventStream === true
          ? "this resource is available as application/json or text/event-stream"
          : "this resource is available as application/json",
      );
    }
    if (config.startsWork === true && isDraining?.() === true) throw daemonUnavailable();
    // Size before type: Fastify would answer 415 to a body without Content-Type before its size.
    const limit = bodyLimitOf(request);
    if (Number(request.headers["content-length"] ?? 0) > limit) throw requestBodyTooLarge(limit);
  });
}

/** The query parameters a request's route takes, worked out once a route. */
function allowedQueryOfRoutes(): (request: FastifyRequest) => ReadonlySet<string> {
  const allowedQueryByRoute = new Map<string, ReadonlySet<string>>();
  return (request) => {
    const route = request.routeOptions;
    return cachedEntry(
      allowedQueryByRoute,
      `${request.method} ${route.url ?? ""}`,
      () => new Set(route.config.query ?? queryNamesOfSchema(route.schema?.querystring)),
    );
  };
}

// Only 100-continue is understood (and answered once the request passes the ingress checks).
function checkExpectation(expect: string | undefined): void {
  if (expect === undefined) return;
  const expectations = expect.split(",").map((part) => part.trim().toLowerCase());
  if (expectations.every((part) => part === "100-continue")) return;
  throw problem("expectation_failed", "the daemon meets no expectation but `Expect: 100-continue`");
}

/** Bodies: JSON only, parsed strictly; a route without a body schema takes none (`{}` tolerated). */
export function installBodyRules(app: HttpApp): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer, request.headers["content-type"]));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Only a route's own page posts a form, and only a button without fields (the route's query
  // carries what it needs): no form bodies anywhere else, so JSON stays the one request body.
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "buffer" },
    (request, body, done) => {
      if (request.routeOptions.config.emptyFormPost !== true)
        return done(
          problem("unsupported_media_type", "request bodies must be sent as Content-Type: application/json"),
          undefined,
        );
      if ((body as Buffer).length > 0)
        return done(problem("invalid_request", "this form post takes no fields"), undefined);
      done(null, undefined);
    },
  );

  app.addHook("preValidation", async (request) => {
    if (request.routeOptions.schema?.body !== undefined || request.body === undefined) return;
    const body = request.body;
    const isEmptyObject =
      typeof body === "object" && body !== null && !Array.isArray(body) && Object.keys(body).length === 0;
    if (!isEmptyObject)
      throw problem("invalid_request", `${request.method} on this resource takes no request body`);
  });
}

/**
 * Node answers `Expect` itself (100 Continue at once, a bare 417 for anything else) unless its
 * events have listeners: hand both to Fastify, and send 100 Continue once the request passed
 * the checks above with a body the parser takes, so a refused client never uploads it.
 */
export function installExpectContinue(app: HttpApp): void {
  const awaitingContinue = new WeakSet<IncomingMessage>();
  app.server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    awaitingContinue.add(request);
    app.server.emit("request", request, response);
  });
  app.server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    app.server.emit("request", request, response);
  });
  app.addHook("preParsing", async (request, reply, payload) => {
    const waiting = awaitingContinue.delete(request.raw) && !request.raw.complete;
    if (waiting && isJsonMediaType(request.headers["content-type"])) reply.raw.writeContinue();
    return payload;
  });
}
