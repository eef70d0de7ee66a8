/**
 * Reading untrusted JSON from providers: every accessor checks the runtime type and answers
 * `undefined` for anything unexpected, so a malformed payload can never crash a parser with a
 * TypeError.
 *
 * Boundary rule: pure functions over `unknown`; the only error raised is a protocol error for
 * text that is not JSON at all.
 */
import { LlmClientError } from "../model/llm-client.js";

/** A JSON object as received: keys are known, values are not. */
export type WireObject = { readonly [key: string]: unknown };

/** Whether a value is a JSON object (not null, not an array). */
export function isWireObject(value: unknown): value is WireObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object a parsed error body is about: the body itself, or the first object of an array. */
export function bodyRoot(parsed: unknown): WireObject | undefined {
  return Array.isArray(parsed) ? parsed.find(isWireObject) : isWireObject(parsed) ? parsed : undefined;
}

/** `bodyRoot` of an error body's text, or undefined when the text is not JSON. */
export function errorBodyRoot(body: string): WireObject | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  return bodyRoot(parsed);
}

/** The object at `key`, if it is one. */
export function objectAt(source: WireObject | undefined, key: string): WireObject | undefined {
  const value = source?.[key];
  return isWireObject(value) ? value : undefined;
}

/** The string at `key`, if it is one. */
export function stringAt(source: WireObject | undefined, key: string): string | undefined {
  const value = source?.[key];
  return typeof value === "string" ? value : undefined;
}

/** The finite number at `key`, if it is one. */
export function numberAt(source: WireObject | undefined, key: string): number | undefined {
  const value = source?.[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The array at `key`, if it is one. */
function arrayAt(source: WireObject | undefined, key: string): readonly unknown[] | undefined {
  const value = source?.[key];
  return Array.isArray(value) ? value : undefined;
}

/** The objects of the array at `key`, skipping elements that are not objects. */
export function objectsAt(source: WireObject | undefined, key: string): WireObject[] {
  const array = arrayAt(source, key);
  if (array === undefined) return [];
  const objects: WireObject[] = [];
  for (const element of array) if (isWireObject(element)) objects.push(element);
  return objects;
}

/** At most `limit` characters of `text`, marked when cut, for error messages. */
export function preview(text: string, limit = 200): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} chars)`;
}

/**
 * Parses one SSE data payload that must be a JSON object; anything else is a protocol error
 * naming the provider and showing the start of the offending text.
 */
export function parseWireObject(provider: string, data: string): WireObject {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (cause) {
    throw new LlmClientError("protocol", provider, `invalid JSON in a stream event: ${preview(data)}`, {
      code: "invalid_json",
      cause,
    });
  }
  if (!isWireObject(value)) {
    throw new LlmClientError("protocol", provider, `a stream event is not a JSON object: ${preview(data)}`, {
      code: "invalid_event",
    });
  }
  return value;
}
