/**
 * Protocol dispatch for the fake provider: which protocol a request path speaks, a stream
 * reply as that protocol's SSE events, and an HTTP error as that protocol's error body.
 *
 * Boundary rule: pure functions; reusable without the server (benchmarks, daemon tests).
 */
import { encodeAnthropic } from "./encode-anthropic.js";
import { encodeChatCompletions } from "./encode-chat-completions.js";
import type { EncodeContext } from "./encode-context.js";
import { encodeGemini } from "./encode-gemini.js";
import { encodeResponses } from "./encode-responses.js";
import type { FakeProtocol, HttpErrorReply, StreamFailure, StreamReply } from "./reply.js";
import { sse } from "./reply.js";

/** The protocol a request path belongs to (with or without a version prefix), or undefined. */
export function protocolOfPath(path: string): FakeProtocol | undefined {
  const pathname = path.split("?")[0] ?? "";
  if (pathname.endsWith("/chat/completions")) return "chat_completions";
  if (pathname.endsWith("/responses")) return "responses";
  if (pathname.endsWith("/messages")) return "anthropic";
  if (/\/models\/[^/]+:streamGenerateContent$/.test(pathname)) return "gemini";
  return undefined;
}

/** The model named by a Gemini path (`.../models/{model}:streamGenerateContent`). */
export function geminiModelOfPath(path: string): string | undefined {
  return /\/models\/([^/:?]+):streamGenerateContent/.exec(path)?.[1];
}

/** `reply` as the SSE events of `protocol`, cut short by its in-stream failure when it has one. */
export function encodeReply(
  protocol: FakeProtocol,
  reply: StreamReply,
  context: EncodeContext,
): Iterable<string> {
  const frames = encodeWhole(protocol, reply, context);
  return reply.fail === undefined ? frames : failing(frames, protocol, reply.fail);
}

function* failing(frames: Iterable<string>, protocol: FakeProtocol, fail: StreamFailure): Generator<string> {
  let sent = 0;
  for (const frame of frames) {
    if (sent++ >= fail.afterEvents) break;
    yield frame;
  }
  yield failureFrame(protocol, fail);
}

/** A transient in-stream failure as each vendor sends it. */
function failureFrame(protocol: FakeProtocol, fail: Omit<StreamFailure, "afterEvents">): string {
  switch (protocol) {
    case "anthropic":
      return sse(
        {
          type: "error",
          error: { type: fail.code ?? "overloaded_error", message: fail.message ?? "Overloaded" },
        },
        "error",
      );
    case "responses":
      return sse(
        {
          type: "response.failed",
          sequence_number: 99,
          response: {
            id: "resp_failed",
            object: "response",
            status: "failed",
            error: {
              code: fail.code ?? "server_error",
              message: fail.message ?? "An error occurred while processing your request.",
            },
          },
        },
        "response.failed",
      );
    case "gemini":
      return sse(
        {
          error: {
            code: 503,
            message: fail.message ?? "The model is overloaded. Please try again later.",
            status: fail.code ?? "UNAVAILABLE",
          },
        },
        undefined,
        "\r\n",
      );
    case "chat_completions":
      return sse({
        error: {
          message: fail.message ?? "The server had an error while processing your request.",
          type: "server_error",
          code: fail.code ?? "server_error",
        },
      });
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown protocol ${String(unreachable)}`);
    }
  }
}

function encodeWhole(protocol: FakeProtocol, reply: StreamReply, context: EncodeContext): Iterable<string> {
  switch (protocol) {
    case "chat_completions":
      return encodeChatCompletions(reply, context);
    case "responses":
      return encodeResponses(reply, context);
    case "anthropic":
      return encodeAnthropic(reply, context);
    case "gemini":
      return encodeGemini(reply, context);
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown protocol ${String(unreachable)}`);
    }
  }
}

/** The whole SSE body of `reply` in `protocol`, as one string. */
export function encodeReplyText(protocol: FakeProtocol, reply: StreamReply, context: EncodeContext): string {
  let text = "";
  for (const frame of encodeReply(protocol, reply, context)) text += frame;
  return text;
}

const defaultCodes: Record<FakeProtocol, Record<number, string>> = {
  chat_completions: {
    400: "invalid_request_error",
    401: "invalid_api_key",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
  },
  responses: {
    400: "invalid_request_error",
    401: "invalid_api_key",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
  },
  anthropic: {
    400: "invalid_request_error",
    401: "authentication_error",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
  },
  gemini: {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
  },
};

/** The error code a protocol uses for a status unless the reply names one. */
function errorCodeOf(protocol: FakeProtocol, reply: HttpErrorReply): string {
  return reply.code ?? defaultCodes[protocol][reply.status] ?? "error";
}

/** The JSON error body of `protocol` for an HTTP error reply. */
export function errorBody(protocol: FakeProtocol, reply: HttpErrorReply): string {
  if (reply.body !== undefined) return reply.body;
  const code = errorCodeOf(protocol, reply);
  const message = reply.message ?? `fake ${reply.status} error`;
  switch (protocol) {
    case "chat_completions":
    case "responses":
      return JSON.stringify({ error: { message, type: code, param: null, code } });
    case "anthropic":
      return JSON.stringify({ type: "error", error: { type: code, message } });
    case "gemini":
      return JSON.stringify({ error: { code: reply.status, message, status: code } });
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown protocol ${String(unreachable)}`);
    }
  }
}
