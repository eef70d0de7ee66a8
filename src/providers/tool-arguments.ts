/**
 * Tool-call arguments for protocols that carry them as JSON objects (Anthropic `input`, Gemini
 * `args`) although the history keeps the model's exact string.
 *
 * Boundary rule: pure functions.
 */
import type { JsonObject } from "../model/json.js";

/**
 * The arguments string as an object. Documented fallback: a string that is not a JSON object
 * (a truncated or garbled call) becomes `{}`, so the history can still be sent; the tool
 * already answered that call with an error the model can see.
 */
export function argumentsObject(args: string): JsonObject {
  if (args.trim().length === 0) return {};
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
  } catch {
    return {};
  }
}
