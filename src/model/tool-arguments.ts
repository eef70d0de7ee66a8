/**
 * A tool call's arguments as the model wrote them (a string, kept verbatim in the history),
 * read as JSON once, here, for every layer. The history never changes; what a reader does with
 * arguments that are no JSON object is its own documented fallback:
 *
 * - the worker's tool batch: blank or invalid JSON → the call is not run, its error result says
 *   "not valid JSON (…)"; valid JSON but no object → "not a JSON object";
 * - a built-in tool's input parser: blank → `{}` (then schema-checked); invalid JSON →
 *   `invalid_argument`; no object → schema-checked as it is (and refused by the schema);
 * - an MCP tool: only objects reach it (the worker refused the rest), anything else is
 *   `invalid_argument`;
 * - a request builder (Anthropic `input`, Gemini `args`, Chat Completions and Responses
 *   `arguments`): anything but an object is sent as `{}`, since vendors refuse the whole request
 *   otherwise and the call's error result already told the model what happened;
 * - approvals (policy matching, a recovered call's known result, the CLI's approval prompt):
 *   anything but an object has no arguments to match or show, and a call the log holds with
 *   such arguments is answered "not run: the arguments were not a JSON object";
 * - the history API and the CLI's tool lines and diffs: any JSON value is shown parsed, invalid
 *   JSON as its text (a diff: not at all).
 *
 * Boundary rule: pure; never throws.
 */
import type { JsonObject, JsonValue } from "./json.js";

/** What a call's arguments text is. */
export type ToolArguments =
  /** A JSON object: the only arguments a tool may be run with. */
  | { kind: "object"; value: JsonObject }
  /** Valid JSON, but an array, string, number, boolean or null. */
  | { kind: "not_object"; value: JsonValue }
  /** Not JSON at all (a call cut off at the output limit, a garbled one); `blank`: only whitespace. */
  | { kind: "invalid_json"; blank: boolean; detail: string };

/** Read a tool call's arguments text as JSON (see the fallbacks above for what callers do with the rest). */
export function parseToolArguments(text: string): ToolArguments {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { kind: "invalid_json", blank: text.trim() === "", detail };
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? { kind: "object", value }
    : { kind: "not_object", value };
}

/** The arguments as an object, or null when they are no JSON object. */
export function toolArgumentsObject(text: string): JsonObject | null {
  const args = parseToolArguments(text);
  return args.kind === "object" ? args.value : null;
}
