/**
 * The JSON Schema shapes tool arguments are written in: an object of named arguments that takes
 * no others, and a string argument that may not be empty.
 *
 * Boundary rule: plain JSON Schema values (2020-12), the same key order every time, so a tool's
 * schema reads the same to the provider from one request to the next.
 */
import type { JsonObject } from "../model/json.js";

/** An object of the arguments `properties` (the `required` ones must be there) and no others. */
export function argumentsSchema(properties: Record<string, JsonObject>, required?: string[]): JsonObject {
  return {
    type: "object",
    properties,
    ...(required === undefined ? {} : { required }),
    additionalProperties: false,
  };
}

/** A string argument that may not be empty; `limits` add further keywords (such as `maxLength`). */
export function textArgument(description: string, limits: JsonObject = {}): JsonObject {
  return { type: "string", minLength: 1, ...limits, description };
}
