/**
 * Query strings: parsed so that repeats stay visible, then checked against what a route allows.
 *
 * Boundary rule: only presence and repetition are checked here; value types and ranges belong
 * to the route's querystring schema. A route's allowed names are its `config.query` list, else
 * the properties of its querystring schema, else none.
 */
import { problem } from "./problem.js";

/** Parsed query: a repeated name maps to an array of its values. */
export type ParsedQuery = Record<string, string | string[]>;

/** Fastify querystringParser: URLSearchParams semantics, repeats kept as arrays, no prototype. */
export function parseQueryString(text: string): ParsedQuery {
  const result: ParsedQuery = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = result[name];
    if (previous === undefined) result[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else result[name] = [previous, value];
  }
  return result;
}

/** Throw 400 invalid_request if `query` has a name outside `allowed` or a repeated name. */
export function checkQuery(query: unknown, allowed: ReadonlySet<string>): void {
  if (typeof query !== "object" || query === null) return;
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.has(name) || Array.isArray(value)) {
      throw problem("invalid_request", `query contains an unknown or repeated parameter: ${name}`);
    }
  }
}

/** The query names a querystring schema declares (its top-level `properties`). */
export function queryNamesOfSchema(schema: unknown): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const properties = (schema as { properties?: unknown }).properties;
  return typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
}
