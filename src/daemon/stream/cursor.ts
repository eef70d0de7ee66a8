/**
 * Parsing of a stream request's resume position: the `after_generation` / `after_seq` query
 * parameters, or (when neither is given) a `Last-Event-ID: <generation>.<cursor>` header as a
 * browser EventSource sends it after reconnecting.
 *
 * Rules: `after_generation` needs `after_seq`; `after_seq` alone is validated and then ignored
 * (an initial attach); a malformed value anywhere is an error, never a silent initial attach.
 *
 * Boundary rule: pure parsing; errors are StreamCursorError (the HTTP layer maps them to 400
 * `invalid_request` problem JSON with `detail` as the problem detail).
 */
import type { StreamCursor } from "../../api/stream-cursor.js";
import { StreamCursorError } from "../errors.js";

/** The query values this parser reads; anything but a single string counts as malformed. */
export interface StreamCursorQuery {
  readonly after_generation?: unknown;
  readonly after_seq?: unknown;
}

const GENERATION = /^[A-Za-z0-9_-]{22}$/;
const SEQUENCE = /^[0-9]{1,16}$/;

/** The cursor a stream request resumes from, or null for an initial attach. Throws StreamCursorError. */
export function parseStreamCursor(query: StreamCursorQuery, lastEventId: unknown): StreamCursor | null {
  const hasGeneration = query.after_generation !== undefined;
  const hasSequence = query.after_seq !== undefined;
  if (hasGeneration || hasSequence) {
    const sequence = hasSequence ? parseSequence(query.after_seq, "after_seq") : null;
    if (!hasGeneration) return null;
    const generation = parseGeneration(query.after_generation, "after_generation");
    if (sequence === null) {
      throw new StreamCursorError("after_seq", "after_generation requires after_seq");
    }
    return { generation, sequence };
  }
  if (lastEventId === undefined || lastEventId === "") return null;
  return parseLastEventId(lastEventId);
}

/** Parses a `Last-Event-ID` value of the form `<generation>.<cursor>`. Throws StreamCursorError. */
export function parseLastEventId(value: unknown): StreamCursor {
  if (typeof value !== "string") {
    throw new StreamCursorError("Last-Event-ID", "Last-Event-ID must be given once");
  }
  const dot = value.indexOf(".");
  const generation = dot === -1 ? "" : value.slice(0, dot);
  const sequence = dot === -1 ? "" : value.slice(dot + 1);
  if (!GENERATION.test(generation) || !isSequence(sequence)) {
    throw new StreamCursorError(
      "Last-Event-ID",
      "invalid Last-Event-ID: expected <generation>.<cursor>, a 22-character base64url generation and an integer cursor",
    );
  }
  return { generation, sequence: Number(sequence) };
}

/** The `id:` value of a frame: what a client sends back as Last-Event-ID. */
export function formatEventId(generation: string, cursor: number): string {
  return `${generation}.${cursor}`;
}

function parseGeneration(value: unknown, parameter: "after_generation"): string {
  if (typeof value !== "string" || !GENERATION.test(value)) {
    throw new StreamCursorError(
      parameter,
      "invalid replay generation: after_generation must be 22 characters of [A-Za-z0-9_-]",
    );
  }
  return value;
}

function parseSequence(value: unknown, parameter: "after_seq"): number {
  if (typeof value !== "string" || !isSequence(value)) {
    throw new StreamCursorError(
      parameter,
      `invalid replay sequence: after_seq must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`,
    );
  }
  return Number(value);
}

function isSequence(text: string): boolean {
  return SEQUENCE.test(text) && Number.isSafeInteger(Number(text));
}
