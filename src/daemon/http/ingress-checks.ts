/**
 * The ingress checks every request meets before its body is read (1-10 of create-http-app.ts),
 * in one `onRequest` hook, and the checks of the body a route takes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { cachedEntry } from "../../model/cached-entry.js";
import { negotiate } from "./accept.js";
import { credentialOf } from "./credential.js";
import type { HttpApp } from "./http-app.js";
import { isJsonMediaType, parseJsonBody } from "./json-body.js";
import { daemonUnavailable, type ProblemError, problem, requestBodyTooLarge } from "./problem.js";
import { bodyLimitOf, notFound } from "./problem-answers.js";
import { checkQuery, queryNamesOfSchema } from "./query.js";
import { checkRouteAccess } from "./route-access.js";

/**
 * Who sends the request: token or cookie, Host, origin, CSRF (the first three checks). Throws
 * the refusal at once when no lookup is needed, else returns a promise that rejects with it.
 */
export type AuthorityCheck = (request: FastifyRequest, isPublic?: boolean) => undefined | Promise<void>;

/**
 * Install the `onRequest` hook that refuses a request failing any check before its body. A
 * callback hook, not an async one: a request that needs no token lookup (the bootstrap token)
 * passes every check without a promise.
 */
export function installIngressChecks(
  app: HttpApp,
  checkAuthority: AuthorityCheck,
  isDraining: (() => boolean) | undefined,
): void {
  const allowedQuery = allowedQueryOfRoutes();
  const awaitingContinue = continueAnswers(app);
  const checkRest = (request: FastifyRequest, reply: FastifyReply): void => {
    checkExpectation(request.headers.expect);
    // Here, not in the 404 handler: Fastify would read and check the body before calling it.
    if (request.is404) throw notFound(request);
    const route = request.routeOptions;
    const config = route.config;
    // The 405 placeholders answer next; nothing else about the request matters.
    if (config.allow !== undefined) return;
    checkRouteAccess(request, route, credentialOf(request.raw));
    const encoding = request.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      throw problem(
        "unsupported_encoding",
        `Content-Encoding ${encoding} is not supported; send the body uncompressed`,
      );
    }
    checkQuery(request.query, allowedQuery(route));
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
    const limit = bodyLimitOf(route);
    if (Number(request.headers["content-length"] ?? 0) > limit) throw requestBodyTooLarge(limit);
    // Past every check: a client waiting to send a JSON body may send it now.
    if (awaitingContinue.delete(request.raw) && !request.raw.complete) {
      if (isJsonMediaType(request.headers["content-type"])) reply.raw.writeContinue();
    }
  };
  const check = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    const passed = (): void => {
      try {
        checkRest(request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    };
    let pending: Promise<void> | undefined;
    try {
      pending = checkAuthority(request, !request.is404 && request.routeOptions.config.public === true);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending === undefined) passed();
    else pending.then(passed, (error: unknown) => done(error as Error));
  };
  app.addHook("onRequest", (request, reply, done) => {
    // On the next microtask, as an async hook would run: Node first finishes parsing the read
    // that held the head, so a request it then finds malformed (a Transfer-Encoding other than
    // chunked) is answered 400 on the raw socket rather than by whatever check here comes first.
    queueMicrotask(() => check(request, reply, done));
  });
}

/** The query parameters a request's route takes, worked out once a route. */
function allowedQueryOfRoutes(): (route: FastifyRequest["routeOptions"]) => ReadonlySet<string> {
  // Keyed by the route's config object: one per route, and the same for all its requests.
  const allowedQueryByRoute = new WeakMap<object, ReadonlySet<string>>();
  return (route) =>
    cachedEntry(
      allowedQueryByRoute,
      route.config,
      () => new Set(route.config.query ?? queryNamesOfSchema(route.schema?.querystring)),
    );
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

  // Only on the routes that take no body (the others' schema checks theirs), so a request to a
  // route with a body schema runs no hook here.
  app.addHook("onRoute", (route) => {
    if (route.schema?.body !== undefined) return;
    const hooks = route.preValidation;
    route.preValidation = [
      ...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]),
      refuseBody,
    ];
  });
}

// A route without a body schema takes no body; an empty object is tolerated.
function refuseBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: FastifyError | ProblemError) => void,
): void {
  const body = request.body;
  const isEmptyObject =
    typeof body === "object" && body !== null && !Array.isArray(body) && Object.keys(body).length === 0;
  if (body === undefined || isEmptyObject) done();
  else done(problem("invalid_request", `${request.method} on this resource takes no request body`));
}

/**
 * Node answers `Expect` itself (100 Continue at once, a bare 417 for anything else) unless its
 * events have listeners: hand both to Fastify. The ingress hook sends 100 Continue once the
 * request passed its checks with a body the parser takes, so a refused client never uploads it.
 * Returns the requests still waiting for it.
 */
function continueAnswers(app: HttpApp): WeakSet<IncomingMessage> {
  const awaitingContinue = new WeakSet<IncomingMessage>();
  app.server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    awaitingContinue.add(request);
    app.server.emit("request", request, response);
  });
  app.server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    app.server.emit("request", request, response);
  });
  return awaitingContinue;
}
