/**
 * The answers real vendors give a prompt longer than the model's context window, in their own
 * shapes and words, and the fake's own measure of a prompt (its JSON body at four characters a
 * token), so a fake with a window refuses what a real model would:
 * - Chat Completions: HTTP 400 `invalid_request_error`, code `context_length_exceeded`,
 *   "This model's maximum context length is M tokens. However, your messages resulted in N tokens. …";
 * - Responses: HTTP 400, code `context_length_exceeded`, "Your input exceeds the context window
 *   of this model. …" (or, `inStream`, the same error as an `error` event of the stream);
 * - Anthropic: HTTP 400 `invalid_request_error`, "prompt is too long: N tokens > M maximum";
 * - Gemini: HTTP 400 `INVALID_ARGUMENT`, "The input token count (N) exceeds the maximum number
 *   of tokens allowed (M)."
 *
 * Boundary rule: pure builders of replies.
 */
import { type FakeProtocol, type RawReply, type Reply, raw, sse } from "./reply.js";

/** The fake's token count of a request body (four characters a token). */
export function promptTokensOf(rawBody: string): number {
  return Math.ceil(rawBody.length / 4);
}

/** The vendor's answer to a prompt of `tokens` tokens for a model whose window is `window`. */
export function contextOverflowReply(
  protocol: FakeProtocol,
  tokens: number,
  window: number,
  options: { inStream?: boolean } = {},
): Reply {
  switch (protocol) {
    case "chat_completions":
      return {
        kind: "http_error",
        status: 400,
        body: JSON.stringify({
          error: {
            message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        }),
      };
    case "responses": {
      const error = {
        type: "invalid_request_error",
        code: "context_length_exceeded",
        message:
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
        param: "input",
      };
      if (options.inStream === true) return responsesStreamError(error);
      return { kind: "http_error", status: 400, body: JSON.stringify({ error }) };
    }
    case "anthropic":
      return {
        kind: "http_error",
        status: 400,
        body: JSON.stringify({
          type: "error",
          error: {
            type: "invalid_request_error",
            message: `prompt is too long: ${tokens} tokens > ${window} maximum`,
          },
        }),
      };
    case "gemini":
      return {
        kind: "http_error",
        status: 400,
        body: JSON.stringify({
          error: {
            code: 400,
            message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${window}).`,
            status: "INVALID_ARGUMENT",
          },
        }),
      };
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown protocol ${String(unreachable)}`);
    }
  }
}

/** A Responses stream that fails at once with an `error` event (as the API does for some refusals). */
function responsesStreamError(error: Record<string, unknown>): RawReply {
  return raw([sse({ type: "error", sequence_number: 0, error }, "error")]);
}
