/**
 * Answers written straight onto the socket, for what never reaches Fastify as a request: bytes
 * Node cannot parse (bad framing, oversized headers), requests that time out, and CONNECT (Node
 * hands over the socket instead of a request).
 *
 * Boundary rule: these are problem JSON too, written as a complete HTTP/1.1 response that closes
 * the connection (its framing cannot be trusted any more). The identity checks still come first
 * where the head can be read (request-authority.ts, in the same order as for any request): a
 * caller without the token learns nothing beyond 401, a foreign Host or origin gets its 403.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { problemContentType } from "../../api/problem.js";
import { authenticationRequired, ProblemError, problem } from "./problem.js";
import { headInRawRequest } from "./raw-head.js";
import type { ReadableHead, RequestAuthority } from "./request-authority.js";

/** Node's parse failure of a request, as its 'clientError' event reports it. */
export type ClientError = Error & { code?: string; rawPacket?: unknown };

/**
 * Answer a request Node could not parse or that timed out, then close the socket. The identity
 * checks come first, as for any request, on whatever head can be read: the request's own when
 * Node had parsed its head (a body's framing failed), else the failed read's bytes.
 */
export function answerUnparsableRequest(
  error: ClientError,
  socket: Duplex,
  authority: RequestAuthority,
): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // Node's own rule: never write into a response that has started (it would corrupt it).
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  // A request in flight may not have been judged yet: its checks run after Node parsed the rest
  // of the same read, where the body's framing failed.
  const head =
    inFlight != null
      ? { rawHeaders: inFlight.req.rawHeaders, method: inFlight.req.method ?? null, whole: true }
      : headInRawRequest(Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined);
  writeProblemAndClose(socket, unparsableProblem(error.code, refusalOf(head, authority)));
}

/** Refuse a CONNECT request (the daemon is no proxy) and close its socket. */
export function answerConnect(request: IncomingMessage, socket: Duplex, authority: RequestAuthority): void {
  const head = { rawHeaders: request.rawHeaders, method: request.method ?? null, whole: true };
  writeProblemAndClose(
    socket,
    refusalOf(head, authority) ??
      problem("invalid_request", "CONNECT is not supported: the daemon is not a proxy"),
  );
}

/** Why the identity checks refuse `head` (no head at all: no token was seen), or null. */
function refusalOf(head: ReadableHead | null, authority: RequestAuthority): ProblemError | null {
  if (head === null) return authenticationRequired();
  try {
    authority.check(head);
    return null;
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
}

function unparsableProblem(code: string | undefined, refusal: ProblemError | null): ProblemError {
  // These two are told to anyone (they say nothing about the daemon), unless a caller whose token
  // was read sent them from where it may not: then the refusal, as for any request.
  const beforeToken = refusal === null || refusal.code === "authentication_required";
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return beforeToken ? problem("request_timeout", "the request was not received in time") : refusal;
    case "HPE_HEADER_OVERFLOW":
      return beforeToken
        ? problem("request_headers_too_large", "the request headers are too large")
        : refusal;
    default:
      break;
  }
  if (refusal !== null) return refusal;
  if (code === "HPE_CHUNK_EXTENSIONS_OVERFLOW") {
    return problem("request_body_too_large", "the chunk extensions of the request body are too large");
  }
  return problem("invalid_request", `the request is not valid HTTP/1.1 (${code ?? "parse error"})`);
}

function writeProblemAndClose(socket: Duplex, answer: ProblemError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(answer.body());
  const headers: Record<string, string> = {
    ...answer.headers,
    "content-type": problemContentType,
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-store",
    connection: "close",
  };
  const head = [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? "Error"}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`, () => socket.destroy());
}
