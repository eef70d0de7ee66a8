/**
 * How the daemon's app answers a refusal or a failure: as problem JSON, with the headers every
 * answer carries (no caching; a connection closed when an unread body rest is unbounded).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { problemContentType } from "../../api/problem.js";
import { ProblemError, problem, requestBodyTooLarge } from "./problem.js";
import { defaultBodyLimit } from "./route-config.js";
import { describeValidation, type ValidationIssue } from "./validation-detail.js";

/** A W3C `traceparent` header's trace id (version 00; not all zeros). */
const traceparentShape = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** What a request's log line names besides its error. */
interface RequestLogFields {
  reqId: string;
  session_id?: string;
  trace_id?: string;
}

/** The request, the session and the caller's trace a request is about, for its log lines. */
function requestLogFields(request: FastifyRequest): RequestLogFields {
  const fields: RequestLogFields = { reqId: request.id };
  const sid = (request.params as { sid?: unknown } | undefined)?.sid;
  if (typeof sid === "string") fields.session_id = sid;
  const traceparent = request.headers.traceparent;
  const traceId = typeof traceparent === "string" ? traceparentShape.exec(traceparent)?.[1] : undefined;
  if (traceId !== undefined && !/^0+$/.test(traceId)) fields.trace_id = traceId;
  return fields;
}

/** The problem an error thrown while answering `request` is answered with (500 ones logged). */
export function toProblem(error: unknown, request: FastifyRequest): ProblemError {
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
      return requestBodyTooLarge(bodyLimitOf(request.routeOptions));
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
  request.log.error(
    { ...requestLogFields(request), err: error },
    "unexpected error while answering a request",
  );
  return problem("internal_error", "the daemon failed to answer this request; the cause is in its log");
}

/** The most body bytes a route takes (`route`: a request's `routeOptions`). */
export function bodyLimitOf(route: FastifyRequest["routeOptions"]): number {
  return route.bodyLimit ?? defaultBodyLimit;
}

/** 404 for a path no route serves. */
export function notFound(request: FastifyRequest): ProblemError {
  return problem("resource_not_found", `no resource at ${request.url.split("?")[0]}`);
}

/**
 * Send `answer` as problem JSON. Also used where Fastify runs no hooks (frameworkErrors): the
 * bytes are sent as a Buffer, to which Fastify adds no charset parameter, and the common
 * headers are set here.
 */
export function sendProblem(reply: FastifyReply, answer: ProblemError): void {
  reply.code(answer.status).headers(answer.headers).header("content-type", problemContentType);
  settleHeaders(reply.request, reply);
  reply.send(Buffer.from(JSON.stringify(answer.body())));
}

/** Headers of every answer. */
export function settleHeaders(request: FastifyRequest, reply: FastifyReply): void {
  if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
  // Answered before the whole body arrived: on a kept-alive connection Node reads and discards
  // the rest before the next request. Allowed up to the route's limit (the daemon would have
  // read that much anyway); a larger or chunked (unbounded) rest closes the connection instead.
  if (!request.raw.complete) {
    const declared = request.headers["content-length"];
    if (declared === undefined || Number(declared) > bodyLimitOf(request.routeOptions))
      reply.header("connection", "close");
  }
}

/** What a request Fastify could not route is told. */
export function frameworkErrorDetail(error: FastifyError): string {
  switch (error.code) {
    case "FST_ERR_BAD_URL":
      return "the request URL is malformed";
    case "FST_ERR_MAX_PARAM_LENGTH":
      return "a path segment of the request URL is too long";
    default:
      return "the request cannot be routed";
  }
}
