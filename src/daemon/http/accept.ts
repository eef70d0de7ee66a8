/**
 * `Accept` negotiation between JSON and (on routes that stream) text/event-stream.
 *
 * Boundary rule: a pure function of the header. No Accept, or one that allows JSON, gets JSON.
 * Event-stream is chosen only when the client asks for it at least as strongly as for JSON and
 * names it explicitly (`text/event-stream`): a wildcard Accept must never turn a JSON GET into a
 * stream that does not end.
 */

/** The representation a request gets. */
export type Representation = "json" | "event-stream";

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** The chosen representation, or null when the Accept header allows neither. */
export function negotiate(accept: string | undefined, eventStreamSupported: boolean): Representation | null {
  if (accept === undefined || accept.trim() === "") return "json";
  const ranges = parseAccept(accept);
  // A header with no readable media range is ignored, as if absent (RFC 9110 allows either).
  if (ranges.length === 0) return "json";
  const json = quality(ranges, "application", "json");
  const stream = eventStreamSupported ? quality(ranges, "text", "event-stream") : { q: 0, exact: false };
  if (stream.q > 0 && stream.exact && stream.q >= json.q) return "event-stream";
  if (json.q > 0) return "json";
  if (stream.q > 0) return "event-stream";
  return null;
}

function quality(
  ranges: readonly MediaRange[],
  type: string,
  subtype: string,
): { q: number; exact: boolean } {
  // The most specific matching range decides (RFC 9110 §12.5.1).
  let best: { q: number; specificity: number } | null = null;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === "*"
          ? 1
          : range.type === "*" && range.subtype === "*"
            ? 0
            : -1;
    if (specificity < 0) continue;
    if (best === null || specificity > best.specificity) best = { q: range.q, specificity };
  }
  return best === null ? { q: 0, exact: false } : { q: best.q, exact: best.specificity === 2 };
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(",")) {
    const [mediaType = "", ...parameters] = part.split(";");
    const slash = mediaType.indexOf("/");
    if (slash <= 0) continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name = "", value = ""] = parameter.split("=");
      if (name.trim().toLowerCase() !== "q") continue;
      const parsed = Number(value.trim());
      q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
    }
    ranges.push({
      type: mediaType.slice(0, slash).trim().toLowerCase(),
      subtype: mediaType
        .slice(slash + 1)
        .trim()
        .toLowerCase(),
      q,
    });
  }
  return ranges;
}
