/**
 * Whether a provider refused a request because the prompt does not fit the model's context
 * window, recognised in each vendor's own words:
 * - OpenAI Chat Completions and Responses: code `context_length_exceeded` (an HTTP 400, or a
 *   Responses `error` event inside the stream);
 * - Anthropic: HTTP 400 `invalid_request_error` "prompt is too long: N tokens > M maximum", or
 *   "input length and `max_tokens` exceed context limit"; HTTP 413 `request_too_large`;
 * - Gemini: HTTP 400 `INVALID_ARGUMENT` "The input token count (N) exceeds the maximum number of
 *   tokens allowed (M)";
 * - compatible servers (vLLM, llama.cpp, Ollama, gateways): "maximum context length", "context
 *   window", "context length" in a 400's message.
 *
 * Boundary rule: a pure test of a typed client error; it never looks at anything else.
 */
import type { LlmClientError } from "../model/llm-client.js";

const overflowCodes = new Set(["context_length_exceeded", "request_too_large"]);

const overflowWords =
  /prompt is too long|exceed(s|ed)? (the )?context (window|limit)|maximum context length|context length|context window|input token count .*exceeds the maximum|too many (input )?tokens|request_too_large/i;

/**
 * The context window an overflow error names, when the vendor says it: OpenAI's "maximum
 * context length is N tokens", Anthropic's "N tokens > M maximum", Gemini's "maximum number of
 * tokens allowed (M)". Null when the message gives no number.
 */
export function reportedContextWindow(error: LlmClientError): number | null {
  const patterns = [
    /maximum context length is (\d+)/i,
    /tokens? > (\d+) maximum/i,
    /maximum number of tokens allowed \((\d+)\)/i,
    /context (?:window|limit|length) (?:is|of) (\d+)/i,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(error.message);
    const value = match === null ? Number.NaN : Number(match[1]);
    if (Number.isSafeInteger(value) && value > 0) return value;
  }
  return null;
}

/** Whether `error` says the request was too long for the model's context window. */
export function isContextOverflow(error: LlmClientError): boolean {
  if (error.code !== undefined && overflowCodes.has(error.code)) return true;
  if (error.status === 413) return true;
  const statusFits = error.status === undefined || error.status === 400;
  return statusFits && (error.kind === "http" || error.kind === "api") && overflowWords.test(error.message);
}
