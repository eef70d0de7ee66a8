/**
 * A request body's JSON: the bytes `JSON.stringify(body)` gives, made without serializing again,
 * on every request, the parts of it that do not change from one request to the next. A body
 * builder marks such a part by making it a frozen element of one of the body's top-level arrays
 * (a tool definition, a message built from one history item): its JSON is made once and kept
 * for as long as the element lives. Every turn sends the whole history and every tool's schema
 * again, so without this a turn's request costs in proportion to the history and the tools.
 *
 * Boundary rule: the bytes are exactly `JSON.stringify`'s (the prompt cache and the request
 * tests depend on them); a frozen element's nested values must not change either (builders
 * freeze only elements made of strings and shared constants such as a tool's schema). A field
 * adjustment that would change a frozen element replaces it with a copy (`wire-protocol.ts`).
 */
import { cachedEntry } from "../model/cached-entry.js";

/** The JSON of each frozen element serialized so far. */
const elementJson = new WeakMap<object, string>();

/** Whether `value` is an element whose JSON may be kept (a frozen object or array). */
function isFixedElement(value: unknown): value is object {
  return typeof value === "object" && value !== null && Object.isFrozen(value);
}

/** `elements` as JSON: the kept JSON of its frozen elements, fresh JSON of the others. */
function arrayJson(elements: readonly unknown[]): string {
  if (!elements.some(isFixedElement)) return JSON.stringify(elements);
  let json = "[";
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i];
    if (i > 0) json += ",";
    json += isFixedElement(element)
      ? cachedEntry(elementJson, element, () => JSON.stringify(element))
      : // JSON.stringify writes null for an element it cannot represent.
        (JSON.stringify(element) ?? "null");
  }
  return `${json}]`;
}

/** `JSON.stringify(body)`, reusing the JSON of its top-level arrays' frozen elements. */
export function requestBodyJson(body: Readonly<Record<string, unknown>>): string {
  let json = "{";
  for (const key of Object.keys(body)) {
    const value = body[key];
    const part = Array.isArray(value) ? arrayJson(value) : JSON.stringify(value);
    // A field JSON.stringify leaves out (undefined, a function).
    if (part === undefined) continue;
    json += `${json.length > 1 ? "," : ""}${JSON.stringify(key)}:${part}`;
  }
  return `${json}}`;
}

/**
 * The wire element made from `source` (a history item, a tool's meta), frozen and kept for as
 * long as `source` lives in `cache`, so that every request sends the same element and its JSON
 * is made once. `make` must depend on nothing but `source` and what `cache` is kept for.
 */
export function fixedElement<K extends object, T extends object>(
  cache: WeakMap<K, Readonly<T>>,
  source: K,
  make: () => T,
): Readonly<T> {
  return cachedEntry(cache, source, () => Object.freeze(make()));
}
