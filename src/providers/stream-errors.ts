/**
 * The typed errors parsers raise: a provider's in-stream error event (kind "api") and a stream
 * that stopped before its terminal event (kind "network", code "incomplete_stream").
 *
 * Boundary rule: constructors only.
 */
import { LlmClientError } from "../model/llm-client.js";
import { numberAt, stringAt, type WireObject } from "./wire-json.js";

/**
 * In-stream error codes the vendors use for a temporary failure: Anthropic `overloaded_error`
 * and `api_error`, OpenAI `server_error`, Gemini `UNAVAILABLE` and `INTERNAL`.
 */
const transientCodes = new Set(["overloaded_error", "api_error", "server_error", "UNAVAILABLE", "INTERNAL"]);

/** A provider reported an error inside the stream (error event, response.failed, ...). */
export function providerStreamError(provider: string, message: string, code?: string): LlmClientError {
  const text = message.length > 0 ? message : "the provider reported an error without a message";
  return new LlmClientError(
    "api",
    provider,
    `${provider} error${code === undefined ? "" : ` ${code}`}: ${text}`,
    code === undefined ? {} : { code, transient: transientCodes.has(code) },
  );
}

/**
 * A provider's error object (`{message, code | type | status}`) as `providerStreamError`: the code
 * is the first of `codeFields` holding text, else the first holding a number; `fallback` stands
 * in for a missing message or code.
 */
export function providerStreamErrorOf(
  provider: string,
  error: WireObject | undefined,
  codeFields: readonly string[],
  fallback: { message: string; code?: string },
): LlmClientError {
  const textCode = codeFields.map((field) => stringAt(error, field)).find((code) => code !== undefined);
  const numberCode = codeFields.map((field) => numberAt(error, field)).find((code) => code !== undefined);
  return providerStreamError(
    provider,
    stringAt(error, "message") ?? fallback.message,
    textCode ?? numberCode?.toString() ?? fallback.code,
  );
}

/** The byte stream ended cleanly but before the protocol's terminal event. */
export function incompleteStreamError(provider: string, expected: string): LlmClientError {
  return new LlmClientError(
    "network",
    provider,
    `${provider} stream ended before ${expected}; the response is incomplete`,
    { code: "incomplete_stream" },
  );
}
