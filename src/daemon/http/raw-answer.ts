/**
 * Answers written straight onto the socket, for what never reaches Fastify as a request: bytes
 * Node cannot parse (bad framing, oversized headers), requests that time out, and CONNECT (Node
 * hands over the socket instead of a request).
 *
 * Boundary rule: these are problem JSON too, written as a complete HTTP/1.1 response that closes
 * the connection (its framing cannot be trusted any more). Auth still wins where the token can
 * be read: a caller without it learns nothing beyond 401.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { problemContentType } from "../../api/problem.js";
import { authenticationRequired, type ProblemError, problem } from "./problem.js";
import { authorizationInRawRequest, type BearerCheck, headerValues } from "./request-guard.js";

/** Node's parse failure of a request, as its 'clientError' event reports it. */
export type ClientError = Error & { code?: string; rawPacket?: unknown };

/** Answer a request Node could not parse or that timed out, then close the socket. */
export function answerUnparsableRequest(error: ClientError, socket: Duplex, bearer: BearerCheck): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // Node's own rule: never write into a response that has started (it would corrupt it). A
  // request in flight already passed the onRequest checks, so its token was good.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
  const authorized = inFlight != null || bearer.accepts(authorizationInRawRequest(raw));
  writeProblemAndClose(socket, unparsableProblem(error.code, authorized));
}

/** Refuse a CONNECT request (the daemon is no proxy) and close its socket. */
export function answerConnect(request: IncomingMessage, socket: Duplex, bearer: BearerCheck): void {
  const authorization = headerValues(request.rawHeaders, "authorization");
  const authorized = authorization.length === 1 && bearer.accepts(authorization[0]);
  writeProblemAndClose(
    socket,
    authorized
      ? problem("invalid_request", "CONNECT is not supported: the daemon is not a proxy")
      : authenticationRequired(),
  );
}

function unparsableProblem(code: string | undefined, authorized: boolean): ProblemError {
  // These two come before the token can be read (or with a request whose token already passed).
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return problem("request_timeout", "the request was not received in time");
    case "HPE_HEADER_OVERFLOW":
      return problem("request_headers_too_large", "the request headers are too large");
    default:
      break;
  }
  if (!authorized) return authenticationRequired();
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
