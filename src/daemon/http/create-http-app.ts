/**
 * The daemon's Fastify app: every ingress rule of the HTTP contract, before any route runs.
 *
 * Boundary rule: this file knows no route of the daemon (the lead's routes/ registers them on
 * the returned app); it owns what every request goes through. In order, before the body is read
 * (an `onRequest` hook), a request is refused with:
 *   1. 401 authentication_required: missing, repeated or wrong `Authorization: Bearer <token>`.
 *      Auth comes first so that nothing about the daemon, not even its Host policy, is revealed
 *      to a caller without the token; the response closes the connection, so an unread body
 *      (whatever its Content-Length) is never waited for.
 *   2. 403 host_forbidden: Host is not exactly 127.0.0.1:<port>, localhost:<port> or
 *      [::1]:<port> (DNS rebinding), or is repeated. Also closes the connection.
 *   3. 404 resource_not_found (unknown path) / 405 method_not_allowed (see resource.ts).
 *   4. 415 unsupported_encoding: a Content-Encoding other than identity.
 *   5. 400 invalid_request: an unknown or repeated query parameter.
 *   6. 406 not_acceptable: an Accept that allows neither JSON nor (on streaming routes) SSE.
 *   7. 503 daemon_unavailable: a work-starting route (`config.startsWork`) while draining.
 * Then the body: only application/json (else 415 unsupported_media_type), at most 64 KiB unless
 * the route sets `bodyLimit` (else 413), parsed strictly (json-body.ts), validated by the route's
 * TypeBox schema without coercion or removal of unknown fields (else 400). A route without a
 * body schema takes no body (an empty object is tolerated).
 * Every failure, including Fastify's own and unexpected exceptions (500, logged), is answered
 * as problem JSON; requests Node cannot even parse get problem JSON on the raw socket.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { type TypeBoxTypeProvider, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { negotiate } from "./accept.js";
import { parseJsonBody } from "./json-body.js";
import { daemonUnavailable, ProblemError, problem, problemContentType } from "./problem.js";
import { checkQuery, parseQueryString, queryNamesOfSchema } from "./query.js";
import { allowedHosts, authorizationInRawRequest, BearerCheck, headerCount } from "./request-guard.js";
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
  /** The bearer token every request must carry. */
  token: string;
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
  timeouts?: HttpTimeouts;
}

/** Build the app with every ingress rule installed; register routes, then listen. */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const bearer = new BearerCheck(options.token);
  const timeouts = options.timeouts ?? {};
  const app = Fastify({
    ...(options.loggerInstance === undefined
      ? { logger: options.logger ?? false }
      : { loggerInstance: options.loggerInstance, disableRequestLogging: true }),
    bodyLimit: defaultBodyLimit,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    requestTimeout: timeouts.requestMs ?? 60_000,
    keepAliveTimeout: timeouts.keepAliveMs ?? 10_000,
    http: {
      headersTimeout: timeouts.headersMs ?? 30_000,
      connectionsCheckingInterval: timeouts.checkIntervalMs ?? 5_000,
    },
    // Unused while TypeBox compiles the schemas, but if a plugin ever swaps Ajv back in, it must
    // not silently drop unknown fields or coerce body values either.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
    routerOptions: { querystringParser: parseQueryString },
    clientErrorHandler: (error, socket) => answerUnparsableRequest(error, socket, bearer),
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

  const portOf =
    options.port ??
    (() => {
      const address = app.server.address();
      return typeof address === "object" && address !== null ? address.port : 0;
    });
  let hostsFor: { port: number; hosts: Set<string> } | null = null;
  const hostsOfPort = (port: number): Set<string> => {
    if (hostsFor?.port !== port) hostsFor = { port, hosts: allowedHosts(port, options.extraHosts) };
    return hostsFor.hosts;
  };

  const checkAuthority = (request: FastifyRequest): void => {
    const raw = request.raw.rawHeaders;
    if (headerCount(raw, "authorization") > 1 || !bearer.accepts(request.headers.authorization)) {
      throw problem("authentication_required", "a valid `Authorization: Bearer <token>` header is required", {
        headers: { "www-authenticate": "Bearer", connection: "close" },
      });
    }
    const host = request.headers.host?.toLowerCase();
    if (headerCount(raw, "host") !== 1 || host === undefined || !hostsOfPort(portOf()).has(host)) {
      const port = portOf();
      throw problem("host_forbidden", `the Host header must be 127.0.0.1:${port} or localhost:${port}`, {
        headers: { connection: "close" },
      });
    }
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
    checkAuthority(request);
    const config = request.routeOptions.config;
    // The 404 handler and the 405 placeholders answer next; nothing else about the request matters.
    if (request.is404 || config.allow !== undefined) return;
    const encoding = request.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      throw problem(
        "unsupported_encoding",
        `Content-Encoding ${encoding} is not supported; send the body uncompressed`,
      );
    }
    checkQuery(request.query, allowedQuery(request));
    if (negotiate(request.headers.accept, config.eventStream === true) === null) {
      throw problem(
        "not_acceptable",
        config.eventStream === true
          ? "this resource is available as application/json or text/event-stream"
          : "this resource is available as application/json",
      );
    }
    if (config.startsWork === true && options.isDraining?.() === true) throw daemonUnavailable();
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

  app.addHook("onSend", (_request, reply, payload, done) => {
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    const type = reply.getHeader("content-type");
    // RFC 8259 and RFC 9457 define no charset parameter (JSON is UTF-8); send the bare media type.
    if (typeof type === "string" && type.endsWith("; charset=utf-8")) {
      const media = type.slice(0, -"; charset=utf-8".length);
      if (media === "application/json" || media === problemContentType) reply.header("content-type", media);
    }
    done(null, payload);
  });

  app.setNotFoundHandler(async (request) => {
    throw problem("resource_not_found", `no resource at ${request.url.split("?")[0]}`);
  });

  app.setErrorHandler((error, request, reply) => {
    sendProblem(reply, toProblem(error, request));
  });

  return app;
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
    case "FST_ERR_CTP_BODY_TOO_LARGE": {
      const limit = request.routeOptions.bodyLimit ?? defaultBodyLimit;
      return problem("request_body_too_large", `the request body exceeds ${limit} bytes`, {
        headers: { connection: "close" },
      });
    }
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

function sendProblem(reply: FastifyReply, answer: ProblemError): void {
  reply
    .code(answer.status)
    .headers(answer.headers)
    .header("content-type", problemContentType)
    .send(JSON.stringify(answer.body()));
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

// Node could not parse the request (bad Content-Length, bad framing, oversized headers, ...), so
// Fastify never sees it. Answer on the raw socket and close it. Auth still wins: a caller
// without the token learns nothing beyond 401, as albedo does.
function answerUnparsableRequest(
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
  bearer: BearerCheck,
): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // Node's own rule: never write into a response that has started (it would corrupt it). A
  // request in flight already passed the onRequest checks, so its token was good.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  let status: number;
  let answer: ProblemError;
  const extra: string[] = [];
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    status = 408;
    answer = new ProblemError(408, "invalid_request", "the request was not received in time", {
      title: "Request timeout",
    });
  } else if (error.code === "HPE_HEADER_OVERFLOW") {
    status = 431;
    answer = new ProblemError(431, "invalid_request", "the request headers are too large");
  } else {
    const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
    if (inFlight == null && !bearer.accepts(authorizationInRawRequest(raw))) {
      status = 401;
      answer = problem(
        "authentication_required",
        "a valid `Authorization: Bearer <token>` header is required",
      );
      extra.push("WWW-Authenticate: Bearer");
    } else {
      status = 400;
      answer = problem(
        "invalid_request",
        `the request is not valid HTTP/1.1 (${error.code ?? "parse error"})`,
      );
    }
  }
  const body = JSON.stringify(answer.body());
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    `Content-Type: ${problemContentType}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    "Connection: close",
    ...extra,
  ];
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`, () => socket.destroy());
}
