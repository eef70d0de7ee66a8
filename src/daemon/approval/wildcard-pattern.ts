/**
 * Wildcard patterns of approval rules: `*` matches any run of characters (none included, `/`,
 * spaces and newlines included), `\*` a literal star and `\\` a literal backslash; every other
 * character (a backslash before anything else included) matches itself. A pattern matches the
 * whole text, not a part of it.
 *
 * Boundary rule: pure. Matching takes time proportional to the product of the lengths at worst
 * (no regular expressions, so no pathological backtracking), and compiled patterns are cached.
 */

/** A compiled pattern: literal segments, with a star between each two. */
type Compiled = readonly string[];

const cache = new Map<string, Compiled>();
const cacheLimit = 4096;

/** Whether `pattern` matches all of `text`. */
export function matchesWildcard(pattern: string, text: string): boolean {
  return matchSegments(compiled(pattern), text);
}

/** A pattern that matches exactly `text` (its stars and backslashes escaped). */
export function literalPattern(text: string): string {
  return text.replace(/[\\*]/g, (char) => `\\${char}`);
}

function compiled(pattern: string): Compiled {
  let segments = cache.get(pattern);
  if (segments === undefined) {
    segments = compile(pattern);
    if (cache.size >= cacheLimit) cache.clear();
    cache.set(pattern, segments);
  }
  return segments;
}

function compile(pattern: string): Compiled {
  const segments: string[] = [];
  let current = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    const next = pattern[i + 1];
    if (char === "\\" && (next === "*" || next === "\\")) {
      current += next;
      i++;
    } else if (char === "*") {
      segments.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  segments.push(current);
  return segments;
}

/**
 * The first segment must start the text and the last must end it; the ones between are found
 * left to right, each at its earliest place (earliest is always safe when stars separate them).
 */
function matchSegments(segments: Compiled, text: string): boolean {
  const first = segments[0]!;
  if (segments.length === 1) return text === first;
  const last = segments[segments.length - 1]!;
  if (first.length + last.length > text.length || !text.startsWith(first) || !text.endsWith(last)) {
    return false;
  }
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    if (segment === "") continue;
    const found = text.indexOf(segment, at);
    if (found === -1 || found + segment.length > end) return false;
    at = found + segment.length;
  }
  return true;
}
