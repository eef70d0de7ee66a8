/**
 * What every protocol encoder shares: the model name, an id source, and helpers to walk a
 * reply's deltas and cut tool arguments into pieces.
 *
 * Boundary rule: pure helpers (the id source is the only state).
 */
import type { FakeUsage, ReplyPart, StreamReply } from "./reply.js";
import { defaultUsage } from "./reply.js";

export interface EncodeContext {
  model: string;
  /** A fresh id with a prefix, unique within the server's life. */
  nextId(prefix: string): string;
  /** Responses: a function call item was produced after this reasoning item (OpenAI pairs them). */
  pairCall?(callItemId: string, reasoningId: string): void;
  /** Anthropic: a thinking block was signed; the signature is valid only with exactly this text. */
  signThinking?(signature: string, thinking: string): void;
}

/** A context with a counter-based id source (deterministic, handy in tests and benches). */
export function encodeContext(model: string): EncodeContext {
  let counter = 0;
  return { model, nextId: (prefix) => `${prefix}_${(++counter).toString().padStart(4, "0")}` };
}

/** The deltas of a text part, generated lazily for `text_repeat`. */
export function* textDeltas(part: ReplyPart): Generator<string> {
  if (part.type === "text") {
    yield* part.deltas;
  } else if (part.type === "text_repeat") {
    const { text } = part;
    for (let index = 0; index < part.count; index++) yield typeof text === "string" ? text : text(index);
  }
}

/** Whether a part is text of either kind. */
export function isTextPart(part: ReplyPart): boolean {
  return part.type === "text" || part.type === "text_repeat";
}

/** `text` cut into `pieces` nearly equal pieces (by code point; the first piece may be empty only for empty text). */
export function splitPieces(text: string, pieces = 3): string[] {
  const characters = Array.from(text);
  if (characters.length === 0) return [];
  const count = Math.max(1, Math.min(pieces, characters.length));
  const size = Math.ceil(characters.length / count);
  const result: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    result.push(characters.slice(start, start + size).join(""));
  }
  return result;
}

/** The usage a reply reports. */
export function usageOf(reply: StreamReply): FakeUsage {
  return reply.usage ?? defaultUsage;
}

/** Whether the reply ends with tool calls (the stop reason is then tool use). */
export function hasToolCalls(reply: StreamReply): boolean {
  return reply.parts.some((part) => part.type === "tool_call");
}
