/**
 * Turning HTTP failures into typed `LlmClientError`s: error statuses with the provider's own
 * code and message (every vendor nests them differently), `Retry-After` in seconds, as an HTTP
 * date or as OpenAI's `retry-after-ms`, and transport failures with their system error code.
 *
 * Boundary rule: pure functions of status, headers, body text and thrown values.
 */

import type { RefusedPath } from "../model/llm-client.js";
import { LlmClientError } from "../model/llm-client.js";
import { refusedFields, refusedPaths, validationText } from "./refused-fields.js";
import { bodyRoot, errorBodyRoot, objectAt, objectsAt, preview, stringAt } from "./wire-json.js";

/** Response headers as far as error handling reads them (undici response headers, wrapped). */
export interface HeaderSource {
  get(name: string): string | null;
}

/** Retry-After as milliseconds from `now`, from `retry-after-ms` or `retry-after`; undefined if absent or unreadable. */
export function retryAfterMs(headers: HeaderSource, now = Date.now()): number | undefined {
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && /^\s*\d+(\.\d+)?\s*$/.test(milliseconds))
    return Math.ceil(Number(milliseconds));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * Google's `RetryInfo.retryDelay` ("37s", "1.5s") in an error body's `error.details`, as
 * milliseconds: Gemini's 429 RESOURCE_EXHAUSTED carries it there and sends no Retry-After.
 */
function retryInfoDelayMs(body: string): number | undefined {
  const root = errorBodyRoot(body);
  for (const detail of objectsAt(objectAt(root, "error"), "details")) {
    if (!(stringAt(detail, "@type") ?? "").endsWith("google.rpc.RetryInfo")) continue;
    const delay = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(stringAt(detail, "retryDelay") ?? "");
    if (delay !== null) return Math.ceil(Number(delay[1]) * 1000);
  }
  return undefined;
}

/** The provider's error code and message from an error body of any of the four vendors. */
export function describeErrorBody(body: string): { code?: string; message?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const text = body.trim();
    return text.length > 0 ? { message: preview(text, 500) } : {};
  }
  // OpenAI {error:{message,type,code}}, Anthropic {type:"error",error:{type,message}},
  // Gemini {error:{code:429,message,status}}, and a few servers' bare {message} or [{error}].
  const root = bodyRoot(parsed);
  const error = objectAt(root, "error") ?? root;
  // pydantic validators (Mistral, vLLM) list what they refused in `detail`, not in a message.
  const validation = root === undefined ? undefined : validationText(root);
  const message =
    validation ?? stringAt(error, "message") ?? stringAt(root, "error") ?? stringAt(root, "detail");
  const code = stringAt(error, "code") ?? stringAt(error, "status") ?? stringAt(error, "type");
  const result: { code?: string; message?: string } = {};
  if (code !== undefined) result.code = code;
  if (message !== undefined) result.message = message;
  return result;
}

/** An HTTP error status as a typed error carrying status, provider code, message and Retry-After. */
export function httpStatusError(
  provider: string,
  status: number,
  statusText: string,
  headers: HeaderSource,
  body: string,
): LlmClientError {
  const { code, message } = describeErrorBody(body);
  const retryAfter = retryAfterMs(headers) ?? retryInfoDelayMs(body);
  const details: {
    status: number;
    code?: string;
    retryAfterMs?: number;
    fields?: string[];
    paths?: RefusedPath[];
  } = { status };
  if (code !== undefined) details.code = code;
  if (retryAfter !== undefined) details.retryAfterMs = retryAfter;
  if (status >= 400 && status < 500) {
    const fields = refusedFields(body);
    if (fields.length > 0) details.fields = fields;
    const paths = refusedPaths(body);
    if (paths.length > 0) details.paths = paths;
  }
  const reason = message ?? (statusText.length > 0 ? statusText : "no error message");
  return new LlmClientError("http", provider, `${provider} HTTP ${status}: ${reason}`, details);
}

/** The system error code (ECONNREFUSED, UND_ERR_SOCKET, ...) somewhere in an error's cause chain. */
function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return undefined;
}

/** The innermost message of an error's cause chain (a transport error may wrap the useful one). */
function rootMessage(error: unknown): string {
  let current: unknown = error;
  let message = String(error);
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    message = current.message;
    current = current.cause;
  }
  return message;
}

/** A transport failure (connect, reset, broken body) as a network error with its system code. */
export function transportError(
  provider: string,
  phase: "connect" | "stream",
  error: unknown,
): LlmClientError {
  const code = systemErrorCode(error);
  const what = phase === "connect" ? "could not reach the provider" : "the stream broke";
  const details: { code?: string; cause: unknown } = { cause: error };
  if (code !== undefined) details.code = code;
  return new LlmClientError("network", provider, `${provider}: ${what}: ${rootMessage(error)}`, details);
}
