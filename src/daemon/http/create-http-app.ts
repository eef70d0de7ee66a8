/**
 * The daemon's Fastify app: every ingress rule of the HTTP contract, before any route runs.
 *
 * Boundary rule: this file knows no route of the daemon (src/daemon/routes registers them on
 * the returned app); it owns what every request goes through. In order, before the body is read
 * (1-10 in an `onRequest` hook, 11 in Fastify's parser lookup), a request is refused with:
 *   1. 401 authentication_required: missing, repeated or wrong `Authorization: Bearer <token>`,
 *      and no valid browser login cookie instead (browser-logins.ts). Auth comes first so that
 *      nothing about the daemon, not even its Host policy, is revealed to a caller without the
 *      token. Routes marked `public` (the web page's shell and assets, the login link) skip it.
 *      A bearer header, when present, decides alone: a wrong token is refused whatever cookie
 *      comes with it.
 *   2. 400 invalid_request: no Host header or more than one; 403 host_forbidden: Host is not
 *      exactly 127.0.0.1:<port>, localhost:<port> or [::1]:<port>, nor a name the operator
 *      configured (`extraHosts`, `publicUrls`) (DNS rebinding).
 *   3. 403 origin_forbidden: sent by a web page other than the daemon's own (request-guard.ts);
 *      403 csrf_token_invalid: a request signed in by cookie, other than GET or HEAD, without
 *      its login's `X-Skein-CSRF` token.
 *   4. 417 expectation_failed: an `Expect` other than 100-continue.
 *   5. 404 resource_not_found (unknown path) / 405 method_not_allowed (see resource.ts).
 *   6. 415 unsupported_encoding: a Content-Encoding other than identity.
 *   7. 400 invalid_request: an unknown or repeated query parameter.
 *   8. 406 not_acceptable: an Accept that allows neither JSON nor (on streaming routes) SSE
 *      (routes marked `page` answer HTML or assets and decide themselves).
 *   9. 503 daemon_unavailable: a work-starting route (`config.startsWork`) while draining.
 *  10. 413 request_body_too_large: a Content-Length over the route's limit (64 KiB unless the
 *      route sets `bodyLimit`).
 *  11. 415 unsupported_media_type: a body that is not application/json.
 * A client that sent `Expect: 100-continue` gets its 100 Continue only past 1-10 and with an
 * application/json body; a refused one is answered without it (and Node closes). Then the body:
 * at most the route's limit even when chunked (else 413), parsed strictly (json-body.ts),
 * validated by the route's TypeBox schema without coercion or removal of unknown fields (else
 * 400). A route without a body schema takes no body (an empty object is tolerated).
 * An answer given before the whole body arrived keeps the connection only when the unread rest
 * is declared within the route's limit (Node then reads and discards it); a larger or chunked
 * rest closes it, so no unbounded body is waited for. The 401, 400/403 (Host and origin) and 413
 * answers always close it.
 * Every failure, including Fastify's own and unexpected exceptions (500, logged), is answered
 * as problem JSON; what Fastify never sees is answered on the raw socket (raw-answer.ts), after
 * the same checks 1-3 (request-authority.ts) on as much of the head as can be read.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { type TypeBoxTypeProvider, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
  type RouteOptions,
} from "fastify";
import { problemContentType } from "../../api/problem.js";
import { negotiate } from "./accept.js";
import type { BrowserLogins } from "./browser-logins.js";
import { recordCredential } from "./credential.js";
import { isJsonMediaType, parseJsonBody } from "./json-body.js";
import { daemonUnavailable, ProblemError, problem, requestBodyTooLarge } from "./problem.js";
import { checkQuery, parseQueryString, queryNamesOfSchema } from "./query.js";
import { answerConnect, answerUnparsableRequest } from "./raw-answer.js";
import { RequestAuthority } from "./request-authority.js";
import { BearerCheck } from "./request-guard.js";
import { defaultBodyLimit } from "./route-config.js";
import { describeValidation, type ValidationIssue } from "./validation-detail.js";

/** The app type routes are registered on (TypeBox schemas give typed requests). */
export type HttpApp = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Connection timeouts (milliseconds). */
export interface HttpTimeouts {
  /** Time to receive a whole request (headers and body). SSE responses are not limited: the
   *  clock stops once the request is received. Default 60 s. */
  requestMs?: number;
  /** Time to receive the request headers. Default 30 s. */
  headersMs?: number;
  /** Idle time before a keep-alive connection is closed. Default 10 s. */
  keepAliveMs?: number;
  /** How often Node checks the two request timeouts. Default 5 s. */
  checkIntervalMs?: number;
}

/** Options of createHttpApp. */
export interface HttpAppOptions {
  /** The bearer token every request must carry (unless it carries a browser login's cookie). */
  token: string;
  /** Browser logins: their cookie authenticates like the token. None: the token only. */
  logins?: BrowserLogins;
  /** The port the app listens on (for the Host check); default: read from the listening server. */
  port?: () => number;
  /** Fastify's logger option (false, true or pino options). Default false. */
  logger?: FastifyServerOptions["logger"];
  /**
   * A logger to use instead (the daemon's pino instance): unexpected errors are logged through
   * it; per-request logging stays off.
   */
  loggerInstance?: FastifyBaseLogger;
  /** True while the daemon drains: work-starting routes answer 503 daemon_unavailable. */
  isDraining?: () => boolean;
  /** More host names (without port) the Host header may name, e.g. a non-loopback bind address. */
  extraHosts?: readonly string[];
  /**
   * URLs that reach this daemon from elsewhere (its cluster node URL, a reverse proxy's public
   * URL): their host (with their own port) is an accepted Host, their origin an own origin.
   */
  publicUrls?: readonly string[];
  timeouts?: HttpTimeouts;
}

/** Build the app with every ingress rule installed; register routes, then listen. */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const bearer = new BearerCheck(options.token);
  // The bound port, read once the server listens: `address()` is a system call, and every
  // request's Host check needs the port. (Only ever called for a request: the app exists then.)
  let boundPort = 0;
  const portOf =
    options.port ??
    ((): number => {
      if (boundPort === 0) {
        const address = app.server.address();
        boundPort = typeof address === "object" && address !== null ? address.port : 0;
      }
      return boundPort;
    });
  const authority = new RequestAuthority({
    bearer,
    logins: options.logins,
    port: portOf,
    extraHosts: options.extraHosts,
    publicUrls: options.publicUrls,
  });
  const timeouts = options.timeouts ?? {};
  const app = Fastify({
    ...(options.loggerInstance === undefined
      ? { logger: options.logger ?? false }
      : {
          loggerInstance: options.loggerInstance,
          logController: new LogController({ disableRequestLogging: true }),
        }),
    bodyLimit: defaultBodyLimit,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    requestTimeout: timeouts.requestMs ?? 60_000,
    keepAliveTimeout: timeouts.keepAliveMs ?? 10_000,
    http: {
      // Node would answer a request without Host with an empty 400 before any check of ours.
      requireHostHeader: false,
      headersTimeout: timeouts.headersMs ?? 30_000,
      connectionsCheckingInterval: timeouts.checkIntervalMs ?? 5_000,
    },
    // Unused while TypeBox compiles the schemas, but if a plugin ever swaps Ajv back in, it must
    // not silently drop unknown fields or coerce body values either.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
    routerOptions: { querystringParser: parseQueryString },
    clientErrorHandler: (error, socket) => answerUnparsableRequest(error, socket, authority),
    frameworkErrors: (error, request, reply) => {
      let answer: ProblemError;
      try {
        checkAuthority(request);
        answer = problem("invalid_request", frameworkErrorDetail(error));
      } catch (refusal) {
        answer = toProblem(refusal, request);
      }
      sendProblem(reply, answer);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Body values are checked as sent; query and path values are converted ("5" → 5) first.
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  // Answer schemas document the routes (openapi-document.ts); answers are sent exactly as built.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const routes: RouteOptions[] = [];
  app.addHook("onRoute", (route) => {
    routes.push(route as RouteOptions);
  });
  registeredRoutes.set(app, routes);

  // Who sends the request: token or cookie, Host, origin, CSRF (the first three ingress checks).
  const checkAuthority = (request: FastifyRequest, isPublic = false): void => {
    const head = { rawHeaders: request.raw.rawHeaders, method: request.method, whole: true };
    recordCredential(request.raw, authority.check(head, isPublic));
  };

  const allowedQueryByRoute = new Map<string, ReadonlySet<string>>();
  const allowedQuery = (request: FastifyRequest): ReadonlySet<string> => {
    const route = request.routeOptions;
    const key = `${request.method} ${route.url ?? ""}`;
    let allowed = allowedQueryByRoute.get(key);
    if (allowed === undefined) {
      allowed = new Set(route.config.query ?? queryNamesOfSchema(route.schema?.querystring));
      allowedQueryByRoute.set(key, allowed);
    }
    return allowed;
  };

  app.addHook("onRequest", async (request) => {
    const config = request.routeOptions.config;
    checkAuthority(request, !request.is404 && config.public === true);
    checkExpectation(request.headers.expect);
    // Here, not in the 404 handler: Fastify would read and check the body before calling it.
    if (request.is404) throw notFound(request);
    // The 405 placeholders answer next; nothing else about the request matters.
    if (config.allow !== undefined) return;
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
    if (config.startsWork === true && options.isDraining?.() === true) throw daemonUnavailable();
    // Size before type: Fastify would answer 415 to a body without Content-Type before its size.
    const limit = bodyLimitOf(request);
    if (Number(request.headers["content-length"] ?? 0) > limit) throw requestBodyTooLarge(limit);
  });

  // Node answers `Expect` itself (100 Continue at once, a bare 417 for anything else) unless
  // these events have listeners: hand both to Fastify, and send 100 Continue once the request
  // passed the checks above with a body the parser takes, so a refused client never uploads it.
  const awaitingContinue = new WeakSet<IncomingMessage>();
  app.server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    awaitingContinue.add(request);
    app.server.emit("request", request, response);
  });
  app.server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    app.server.emit("request", request, response);
  });
  app.server.on("connect", (request: IncomingMessage, socket: Duplex) =>
    answerConnect(request, socket, authority),
  );
  app.addHook("preParsing", async (request, reply, payload) => {
    const waiting = awaitingContinue.delete(request.raw) && !request.raw.complete;
    if (waiting && isJsonMediaType(request.headers["content-type"])) reply.raw.writeContinue();
    return payload;
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer, request.headers["content-type"]));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.addHook("preValidation", async (request) => {
    if (request.routeOptions.schema?.body !== undefined || request.body === undefined) return;
    const body = request.body;
    const isEmptyObject =
      typeof body === "object" && body !== null && !Array.isArray(body) && Object.keys(body).length === 0;
    if (!isEmptyObject)
      throw problem("invalid_request", `${request.method} on this resource takes no request body`);
  });

  app.addHook("onSend", (request, reply, payload, done) => {
    settleHeaders(request, reply);
    const type = reply.getHeader("content-type");
    // RFC 8259 and RFC 9457 define no charset parameter (JSON is UTF-8); send the bare media type.
    if (typeof type === "string" && type.endsWith("; charset=utf-8")) {
      const media = type.slice(0, -"; charset=utf-8".length);
      if (media === "application/json" || media === problemContentType) reply.header("content-type", media);
    }
    done(null, payload);
  });

  app.setNotFoundHandler(async (request) => {
    throw notFound(request);
  });

  app.setErrorHandler((error, request, reply) => {
    sendProblem(reply, toProblem(error, request));
  });

  return app;
}

const registeredRoutes = new WeakMap<object, readonly RouteOptions[]>();

/** Every route registered on `app` so far (405 placeholders included), in registration order. */
export function routesOf(app: HttpApp): readonly RouteOptions[] {
  return registeredRoutes.get(app) ?? [];
}

/** True when the client asked for text/event-stream (and the route declares `eventStream`). */
export function wantsEventStream(request: FastifyRequest): boolean {
  return (
    negotiate(request.headers.accept, request.routeOptions.config.eventStream === true) === "event-stream"
  );
}

function toProblem(error: unknown, request: FastifyRequest): ProblemError {
  if (error instanceof ProblemError) return error;
  const fastifyError = error as Partial<FastifyError> & { validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const issues = fastifyError.validation as unknown as ValidationIssue[];
    return problem(
      "invalid_request",
      describeValidation(fastifyError.validationContext ?? "request", issues),
    );
  }
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return requestBodyTooLarge(bodyLimitOf(request));
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return problem(
        "unsupported_media_type",
        "request bodies must be sent as Content-Type: application/json",
      );
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return problem("invalid_request", "the request body length does not match its Content-Length");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return problem("invalid_request", "the request body is not valid JSON");
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    // Fastify's own client errors (aborted upload, bad framing); their messages name no internals.
    return problem("invalid_request", fastifyError.message ?? "the request is invalid");
  }
  request.log.error({ err: error }, "unexpected error while answering a request");
  return problem("internal_error", "the daemon failed to answer this request; the cause is in its log");
}

function bodyLimitOf(request: FastifyRequest): number {
  return request.routeOptions.bodyLimit ?? defaultBodyLimit;
}

function notFound(request: FastifyRequest): ProblemError {
  return problem("resource_not_found", `no resource at ${request.url.split("?")[0]}`);
}

// Only 100-continue is understood (and answered once the request passes the ingress checks).
function checkExpectation(expect: string | undefined): void {
  if (expect === undefined) return;
  const expectations = expect.split(",").map((part) => part.trim().toLowerCase());
  if (expectations.every((part) => part === "100-continue")) return;
  throw problem("expectation_failed", "the daemon meets no expectation but `Expect: 100-continue`");
}

// Also used where Fastify runs no hooks (frameworkErrors): the bytes are sent as a Buffer, to
// which Fastify adds no charset parameter, and the common headers are set here.
function sendProblem(reply: FastifyReply, answer: ProblemError): void {
  reply.code(answer.status).headers(answer.headers).header("content-type", problemContentType);
  settleHeaders(reply.request, reply);
  reply.send(Buffer.from(JSON.stringify(answer.body())));
}

// Headers of every answer.
function settleHeaders(request: FastifyRequest, reply: FastifyReply): void {
  if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
  // Answered before the whole body arrived: on a kept-alive connection Node reads and discards
  // the rest before the next request. Allowed up to the route's limit (the daemon would have
  // read that much anyway); a larger or chunked (unbounded) rest closes the connection instead.
  if (!request.raw.complete) {
    const declared = request.headers["content-length"];
    if (declared === undefined || Number(declared) > bodyLimitOf(request))
      reply.header("connection", "close");
  }
}

function frameworkErrorDetail(error: FastifyError): string {
  switch (error.code) {
    case "FST_ERR_BAD_URL":
      return "the request URL is malformed";
    case "FST_ERR_MAX_PARAM_LENGTH":
      return "a path segment of the request URL is too long";
    default:
      return "the request cannot be routed";
  }
}
