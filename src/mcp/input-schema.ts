/**
 * An MCP tool's `inputSchema` as a tool's `input_schema`: passed through as the server gave it,
 * only made sure to describe an object (MCP requires `"type": "object"`; a server that leaves
 * out `type` or `properties` still gets a schema every provider takes). Conversions a provider's
 * wire format needs (Gemini's) live with that provider.
 *
 * Boundary rule: pure; the input is never modified.
 */
import type { JsonObject, JsonValue } from "../model/json.js";

/** The schema the model is given for a tool whose MCP `inputSchema` is `schema`. */
export function toolInputSchema(schema: unknown): JsonObject {
  const object = isObject(schema) ? (structuredClone(schema) as JsonObject) : {};
  object.type = "object";
  if (!isObject(object.properties)) object.properties = {};
  return object;
}

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
