/**
 * Strict JSON request bodies.
 *
 * Boundary rule: bytes in, a plain JSON value out, or a ProblemError; no schema knowledge (the
 * route's schema validates the shape afterwards). Strict means: UTF-8 only (a charset parameter
 * other than utf-8 is a 415, invalid UTF-8 bytes are a 400 rather than silently replaced), valid
 * JSON only, no `__proto__` key anywhere and no `constructor.prototype` (values that turn into
 * prototype pollution when some later code merges them into an object), and at most
 * `maxJsonDepth` levels of nesting (recursive code further on must not overflow the stack).
 * Duplicate keys are not detected: JSON.parse keeps the last one, and every later step sees
 * only that parsed value, so no two readers can disagree about it.
 */
import { problem } from "./problem.js";

/** Deepest accepted nesting of arrays and objects in a request body. */
const maxJsonDepth = 64;

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Parse a request body of media type application/json; an empty body is `undefined`. */
export function parseJsonBody(body: Uint8Array, contentType: string | undefined): unknown {
  const charset = charsetOf(contentType);
  if (charset !== null && charset !== "utf-8" && charset !== "utf8") {
    throw problem("unsupported_media_type", `JSON bodies must be UTF-8, not charset ${charset}`);
  }
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    throw problem("invalid_request", "the request body is not valid UTF-8");
  }
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw problem("invalid_request", `the request body is not valid JSON: ${(error as Error).message}`);
  }
  checkJsonValue(value);
  return value;
}

/** Throw a 400 ProblemError if a parsed value has forbidden keys or nests too deeply. */
function checkJsonValue(value: unknown): void {
  // Iterative walk: a deliberately deep document must not overflow the stack here either.
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth >= maxJsonDepth) {
      throw problem("invalid_request", `the request body nests deeper than ${maxJsonDepth} levels`);
    }
    if (Array.isArray(current)) {
      for (const item of current) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    const record = current as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (key === "__proto__")
        throw problem("invalid_request", 'the request body contains a forbidden key "__proto__"');
      if (
        key === "constructor" &&
        typeof child === "object" &&
        child !== null &&
        Object.hasOwn(child, "prototype")
      ) {
        throw problem("invalid_request", 'the request body contains a forbidden key "constructor.prototype"');
      }
      stack.push({ value: child, depth: depth + 1 });
    }
  }
}

/** True when a Content-Type names application/json, whatever its parameters. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const media = contentType === undefined ? "" : contentType.split(";")[0]!;
  return media.trim().toLowerCase() === "application/json";
}

function charsetOf(contentType: string | undefined): string | null {
  // Most bodies come as a bare `application/json`: no parameter, nothing to split.
  if (contentType === undefined || !contentType.includes(";")) return null;
  for (const parameter of contentType.split(";").slice(1)) {
    const equals = parameter.indexOf("=");
    if (equals < 0) continue;
    if (parameter.slice(0, equals).trim().toLowerCase() !== "charset") continue;
    return parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
  }
  return null;
}
