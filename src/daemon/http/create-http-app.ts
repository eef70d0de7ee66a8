/**
 * The daemon's Fastify app: every ingress rule of the HTTP contract, before any route runs.
 *
 * Boundary rule: this file knows no route of the daemon (src/daemon/routes registers them on
 * the returned app); it owns what every request goes through (the checks in ingress-checks.ts,
 * the problem answers in problem-answers.ts). In order, before the body is read (1-10 in an
 * `onRequest` hook, 11 in Fastify's parser lookup), a request is refused with:
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
import type { IncomingMessage, Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type TypeBoxTypeProvider, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
  type RouteOptions,
} from "fastify";
import { problemContentType } from "../../api/problem.js";
import { negotiate } from "./accept.js";
import type { BrowserLogins } from "./browser-logins.js";
import { clientAddress, mayConnectInPlainText, plainAddress } from "./client-address.js";
import { type Credential, recordCredential } from "./credential.js";
import type { HttpApp } from "./http-app.js";
import { type AuthorityCheck, installBodyRules, installIngressChecks } from "./ingress-checks.js";
import { problem } from "./problem.js";
import { frameworkErrorDetail, notFound, sendProblem, settleHeaders, toProblem } from "./problem-answers.js";
import { parseQueryString } from "./query.js";
import { answerConnect, answerUnparsableRequest } from "./raw-answer.js";
import { RequestAuthority, type TokenLookup } from "./request-authority.js";
import { BearerCheck } from "./request-guard.js";
import { defaultBodyLimit } from "./route-config.js";

export type { HttpApp } from "./http-app.js";

/** Connection timeouts (milliseconds). */
interface HttpTimeouts {
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
  /** Named API tokens (looked up on every request). None: the bootstrap token only. */
  tokens?: TokenLookup;
  /** Serve HTTPS with this certificate and key (PEM); none: plain HTTP. */
  tls?: { cert: string; key: string };
  /** Peers whose `X-Forwarded-For` names the client (SKEIN_TRUST_PROXY); see client-address.ts. */
  trustedProxies?: readonly string[];
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
    bearer: new BearerCheck(options.token),
    tokens: options.tokens,
    logins: options.logins,
    port: portOf,
    extraHosts: options.extraHosts,
    publicUrls: options.publicUrls,
  });
  // Who sends the request: token or cookie, Host, origin, CSRF (the first three ingress checks).
  const trusted = new Set((options.trustedProxies ?? []).map(plainAddress));
  const checkAuthority: AuthorityCheck = (request, isPublic = false) => {
    const raw = request.raw.rawHeaders;
    const head = { rawHeaders: raw, method: request.method, whole: true };
    const record = (credential: Credential): undefined => {
      recordCredential(
        request.raw,
        credential,
        clientAddress(request.raw.socket.remoteAddress, raw, trusted),
      );
    };
    const credential = authority.checkRequest(head, isPublic);
    return credential instanceof Promise ? credential.then(record) : record(credential);
  };
  const app = Fastify(
    fastifyOptions(options, authority, checkAuthority),
  ).withTypeProvider<TypeBoxTypeProvider>();

  // Body values are checked as sent; query and path values are converted ("5" → 5) first.
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  // Answer schemas document the routes (openapi-document.ts); answers are sent exactly as built.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const routes: RouteOptions[] = [];
  app.addHook("onRoute", (route) => {
    routes.push(route as RouteOptions);
  });
  registeredRoutes.set(app, routes);

  installIngressChecks(app, checkAuthority, options.isDraining);
  app.server.on("connect", (request: IncomingMessage, socket: Duplex) =>
    answerConnect(request, socket, authority),
  );
  installBodyRules(app);
  // Behind a proxy without TLS of its own, only the proxies (and this machine) talk in plain text.
  if (options.tls === undefined && trusted.size > 0) {
    app.server.on("connection", (socket: Socket) => {
      if (!mayConnectInPlainText(socket.remoteAddress, trusted)) socket.destroy();
    });
  }

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

/** Fastify's options: limits and timeouts, no request logging, and what answers before any hook. */
function fastifyOptions(
  options: HttpAppOptions,
  authority: RequestAuthority,
  checkAuthority: AuthorityCheck,
): FastifyHttpOptions<Server> {
  const timeouts = options.timeouts ?? {};
  return {
    ...(options.loggerInstance === undefined
      ? { logger: options.logger ?? false }
      : {
          loggerInstance: options.loggerInstance,
          logController: new LogController({ disableRequestLogging: true }),
          // No child logger per request: with request logging off it would be made for nothing
          // (pino serializes its bindings at once); the one line written per failed request
          // names its request id itself (problem-answers.ts).
          childLoggerFactory: (logger: FastifyBaseLogger) => logger,
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
      void Promise.resolve(request)
        .then((checked) => checkAuthority(checked))
        .then(
          () => sendProblem(reply, problem("invalid_request", frameworkErrorDetail(error))),
          (refusal: unknown) => sendProblem(reply, toProblem(refusal, request)),
        );
    },
    ...(options.tls === undefined ? {} : { serverFactory: httpsServerFactory(options.tls, timeouts) }),
  };
}

/** An HTTPS server with the options Fastify gives its own HTTP server (it passes none to HTTPS). */
function httpsServerFactory(
  tls: { cert: string; key: string },
  timeouts: HttpTimeouts,
): NonNullable<FastifyHttpOptions<Server>["serverFactory"]> {
  return (handler) => {
    const server = createHttpsServer(
      {
        cert: tls.cert,
        key: tls.key,
        requireHostHeader: false,
        headersTimeout: timeouts.headersMs ?? 30_000,
        connectionsCheckingInterval: timeouts.checkIntervalMs ?? 5_000,
      },
      handler,
    );
    server.keepAliveTimeout = timeouts.keepAliveMs ?? 10_000;
    server.requestTimeout = timeouts.requestMs ?? 60_000;
    return server;
  };
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
