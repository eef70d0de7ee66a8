/**
 * RFC 8785 (JCS) canonical JSON: the exact bytes every log entry hash is computed over.
 *
 * Boundary rule: this output format must never change (it would invalidate every stored
 * hash), so it depends on nothing but the ECMAScript primitives RFC 8785 is defined by:
 * `Number.prototype.toString` for numbers, `JSON.stringify` escaping for strings and
 * UTF-16 code-unit order (the default `Array.prototype.sort`) for object keys.
 *
 * Deliberate choices beyond the RFC: a property whose value is `undefined` is skipped (as
 * `JSON.stringify` does), and a string holding a lone surrogate is escaped as `\udXXX` (as
 * `JSON.stringify` does) instead of rejected, so a truncated tool output can never make a
 * session unwritable; the result still parses back to the same string.
 */

/** A value that has no JSON form (non-finite number, function, class instance, cycle...). */
export class CanonicalJsonError extends Error {
  /** Where the value sits, outermost first: object keys and array indexes. */
  readonly path: (string | number)[] = [];

  constructor(readonly reason: string) {
    super(reason);
    this.name = "CanonicalJsonError";
  }

  /** The path as `$.items[2].output`. */
  get location(): string {
    let out = "$";
    for (const step of this.path) out += typeof step === "number" ? `[${step}]` : `.${step}`;
    return out;
  }
}

/** The RFC 8785 canonical JSON text of a JSON value (throws `CanonicalJsonError` otherwise). */
export function canonicalJson(value: unknown): string {
  try {
    return serialize(value);
  } catch (error) {
    if (error instanceof CanonicalJsonError) {
      // The path is only complete once the error has unwound to the top.
      error.message = `cannot canonicalize the value at ${error.location}: ${error.reason}`;
      throw error;
    }
    // A cycle recurses until the stack overflows; a giant value exceeds the string limit.
    if (error instanceof RangeError) {
      throw new CanonicalJsonError(`value is circular, nests too deeply or is too large (${error.message})`);
    }
    throw error;
  }
}

/** Characters `JSON.stringify` escapes: quote, backslash, controls, and any surrogate (lone ones get escaped). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON.stringify escapes.
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Quoted keys seen so far; object keys repeat endlessly across entries. Bounded so odd data cannot grow it forever. */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_LIMIT = 10_000;

function quoteString(value: string): string {
  // Most strings need no escaping; then JSON.stringify's result is the string between quotes.
  return NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`;
}

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${quoteString(key)}:`;
    if (quotedKeys.size < QUOTED_KEYS_LIMIT) quotedKeys.set(key, quoted);
  }
  return quoted;
}

function serialize(value: unknown): string {
  switch (typeof value) {
    case "string":
      return quoteString(value);
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${value} is not a JSON number`);
      // ES Number::toString is RFC 8785's number format; it already prints -0 as "0".
      return `${value}`;
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      return Array.isArray(value) ? serializeArray(value) : serializeObject(value);
    default:
      throw new CanonicalJsonError(`a ${typeof value} is not a JSON value`);
  }
}

function serializeArray(array: readonly unknown[]): string {
  const length = array.length;
  if (length === 0) return "[]";
  let out = "[";
  for (let i = 0; i < length; i++) {
    const element = array[i];
    try {
      if (element === undefined) throw new CanonicalJsonError("an array element is undefined");
      out += i === 0 ? serialize(element) : `,${serialize(element)}`;
    } catch (error) {
      if (error instanceof CanonicalJsonError) error.path.unshift(i);
      throw error;
    }
  }
  return `${out}]`;
}

function serializeObject(object: object): string {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    const name = (prototype as { constructor?: { name?: string } }).constructor?.name ?? "unknown";
    throw new CanonicalJsonError(`an instance of ${name} is not a plain JSON object`);
  }
  const record = object as Record<string, unknown>;
  // Default sort compares UTF-16 code units, which is exactly RFC 8785's key order.
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let out = "{";
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const member = record[key];
    if (member === undefined) continue;
    try {
      const text = quoteKey(key) + serialize(member);
      out += first ? text : `,${text}`;
    } catch (error) {
      if (error instanceof CanonicalJsonError) error.path.unshift(key);
      throw error;
    }
    first = false;
  }
  return `${out}}`;
}
