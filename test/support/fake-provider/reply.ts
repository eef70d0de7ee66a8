/**
 * What the fake provider should answer, independent of the wire protocol: an abstract reply
 * (text, reasoning, tool calls, usage, stop reason) plus how to deliver it (delays, byte chunk
 * size, a disconnect or a stall after N events), or an HTTP error, a hang, or raw bytes. The
 * per-protocol encoders turn a stream reply into that protocol's exact SSE.
 *
 * Boundary rule: plain data and builders; except `text_repeat` with a function, every reply is
 * JSON, so another process can send it to the control endpoint.
 */

export type FakeProtocol = "chat_completions" | "responses" | "anthropic" | "gemini";

type FakeStop = "end_turn" | "max_tokens" | "content_filter";

/** Token counts as the normalized client should report them (input includes cached tokens). */
export interface FakeUsage {
  input: number;
  output: number;
  cached?: number;
  cacheWrite?: number;
  reasoning?: number;
}

export type ReplyPart =
  | {
      type: "text";
      deltas: string[];
      /** Responses: the message item's `phase`. */
      phase?: "commentary" | "final_answer";
      /** Gemini: a thought signature sent on a last chunk with empty text, as Gemini 3 streams it. */
      signature?: string;
    }
  /** Many deltas generated lazily (throughput runs); a function sees the delta's number. */
  | { type: "text_repeat"; count: number; text: string | ((index: number) => string) }
  | {
      type: "reasoning";
      deltas: string[];
      signature?: string;
      encryptedContent?: string;
      id?: string;
      /** Anthropic redacted_thinking: `encryptedContent` is the data; other protocols send it as normal reasoning. */
      redacted?: boolean;
    }
  | {
      type: "tool_call";
      name: string;
      /** The arguments JSON text exactly as the model "writes" it (it may be invalid on purpose). */
      arguments: string;
      /** Split the arguments into this many deltas (Chat, Responses, Anthropic). Default 3. */
      pieces?: number;
      id?: string;
      /** Gemini thought signature on this call's part. */
      signature?: string;
    };

/** How the bytes go on the wire. Event counts are SSE events (frames). */
export interface Delivery {
  /** Pause between events. */
  delayMs?: number;
  /**
   * Send at this many events a second, on a fixed schedule (a late timer is made up by the
   * next events, so the average rate holds where `delayMs: 1` would drift slower).
   */
  eventsPerSecond?: number;
  /** Re-cut the bytes into chunks of this many bytes (splits UTF-8 characters and SSE lines). */
  chunkSize?: number;
  /** Destroy the connection after this many events. */
  disconnectAfter?: number;
  /** Stop writing after this many events but keep the connection open. */
  hangAfter?: number;
}

/** A provider's in-stream failure after some events, in the protocol's own shape. */
export interface StreamFailure {
  /** SSE events sent before the failure. */
  afterEvents: number;
  /** Default: the protocol's transient code (overloaded_error, server_error, UNAVAILABLE). */
  code?: string;
  message?: string;
}

export interface StreamReply {
  kind: "stream";
  parts: ReplyPart[];
  usage?: FakeUsage;
  stop?: FakeStop;
  /** The protocol's own finish value, verbatim (Gemini finishReason, Responses incomplete reason, Chat finish_reason). */
  finishReason?: string;
  /**
   * Chat Completions only: where reasoning goes. `reasoning_content` (default; DeepSeek, vLLM),
   * `reasoning` (Ollama, OpenRouter), `mistral` (typed `thinking`/`text` parts in a
   * `delta.content` array), `think_tags` (raw `<think>…</think>` at the start of the content).
   */
  reasoningField?: "reasoning_content" | "reasoning" | "mistral" | "think_tags";
  /** Chat Completions only: `ollama` sends each parallel call whole at index 0 with its own id. */
  toolCallStyle?: "indexed" | "ollama";
  /** Anthropic only: `stop_details.explanation` of a `finishReason: "refusal"`. */
  refusalExplanation?: string;
  /** Chat Completions only: OpenRouter `reasoning_details`, streamed before the tool calls. */
  reasoningDetails?: Record<string, unknown>[];
  /** Chat Completions only: `xai` reports reasoning tokens beside completion_tokens (total counts both). */
  usageStyle?: "openai" | "xai";
  /** Fail inside the stream after some events. */
  fail?: StreamFailure;
  delivery?: Delivery;
}

export interface RawReply {
  kind: "raw";
  /** Written verbatim, one element per "event" (for delivery counting). */
  frames: string[];
  status?: number;
  contentType?: string;
  delivery?: Delivery;
}

export interface HttpErrorReply {
  kind: "http_error";
  status: number;
  /** Seconds (number) or the header value verbatim (an HTTP date, ...). */
  retryAfter?: number | string;
  code?: string;
  message?: string;
  /** A body to send verbatim instead of the protocol's error JSON. */
  body?: string;
}

/** Accept the request and never answer (no status line). */
export interface HangReply {
  kind: "hang";
}

export type Reply = StreamReply | RawReply | HttpErrorReply | HangReply;

/** The usage a reply reports unless it sets its own. */
export const defaultUsage: FakeUsage = { input: 10, output: 5 };

/** `text` cut into deltas of `size` characters (never inside a surrogate pair). */
function splitText(text: string, size = 4): string[] {
  const characters = Array.from(text);
  const deltas: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    deltas.push(characters.slice(start, start + size).join(""));
  }
  return deltas;
}

function deltasOf(text: string | string[]): string[] {
  return typeof text === "string" ? splitText(text) : text;
}

type StreamOptions = Omit<StreamReply, "kind" | "parts">;

/** A stream reply from parts. */
export function stream(parts: ReplyPart[], options: StreamOptions = {}): StreamReply {
  return { kind: "stream", parts, ...options };
}

/** A text answer; a string is cut into small deltas, an array gives the deltas exactly. */
export function text(content: string | string[], options: StreamOptions = {}): StreamReply {
  return stream([{ type: "text", deltas: deltasOf(content) }], options);
}

/** A text part with its Responses phase or Gemini signature. */
export function textPart(
  content: string | string[],
  extra: { phase?: "commentary" | "final_answer"; signature?: string } = {},
): ReplyPart {
  return { type: "text", deltas: deltasOf(content), ...extra };
}

/** Reasoning followed by `then` (by default nothing else). */
export function reasoning(
  thought: string | string[],
  then: StreamReply = stream([]),
  extra: { signature?: string; encryptedContent?: string; id?: string; redacted?: boolean } = {},
): StreamReply {
  return { ...then, parts: [{ type: "reasoning", deltas: deltasOf(thought), ...extra }, ...then.parts] };
}

/** One tool call as the model makes it; `args` is an object (serialized) or raw text. */
export interface FakeToolCall {
  name: string;
  args: unknown;
  id?: string;
  signature?: string;
  pieces?: number;
}

/** A tool-call part. */
export function toolCallPart(call: FakeToolCall): ReplyPart {
  const part: ReplyPart = {
    type: "tool_call",
    name: call.name,
    arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args),
  };
  if (call.id !== undefined) part.id = call.id;
  if (call.signature !== undefined) part.signature = call.signature;
  if (call.pieces !== undefined) part.pieces = call.pieces;
  return part;
}

/** An answer of tool calls, optionally after some text. */
export function toolCalls(
  calls: FakeToolCall[],
  options: StreamOptions & { text?: string | string[] } = {},
): StreamReply {
  const { text: before, ...rest } = options;
  const parts: ReplyPart[] = before === undefined ? [] : [{ type: "text", deltas: deltasOf(before) }];
  for (const call of calls) parts.push(toolCallPart(call));
  return stream(parts, rest);
}

/** `count` text deltas of `content` (or `content(i)`), generated as they are sent. */
export function deltas(
  count: number,
  content: string | ((index: number) => string) = "x",
  options: StreamOptions = {},
): StreamReply {
  return stream([{ type: "text_repeat", count, text: content }], options);
}

/** An HTTP error with the protocol's error body. */
export function httpError(
  status: number,
  options: { retryAfter?: number | string; code?: string; message?: string; body?: string } = {},
): HttpErrorReply {
  return { kind: "http_error", status, ...options };
}

/** Never answer. */
export function hang(): HangReply {
  return { kind: "hang" };
}

/** Bytes verbatim, one string per event. */
export function raw(frames: string | string[], options: Omit<RawReply, "kind" | "frames"> = {}): RawReply {
  return { kind: "raw", frames: typeof frames === "string" ? [frames] : frames, ...options };
}

/** One SSE event as text (`event:` line only when given). */
export function sse(data: unknown, event?: string, newline = "\n"): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  const eventLine = event === undefined ? "" : `event: ${event}${newline}`;
  return `${eventLine}data: ${payload}${newline}${newline}`;
}

/** `reply` with delivery options merged in. */
export function deliver<T extends StreamReply | RawReply>(reply: T, delivery: Delivery): T {
  return { ...reply, delivery: { ...reply.delivery, ...delivery } };
}

/** `reply`, cut off (connection destroyed) after `events` events. */
export function disconnectAfter<T extends StreamReply | RawReply>(events: number, reply: T): T {
  return deliver(reply, { disconnectAfter: events });
}

/** `reply`, stalling (connection kept open, nothing more sent) after `events` events. */
export function hangAfter<T extends StreamReply | RawReply>(events: number, reply: T): T {
  return deliver(reply, { hangAfter: events });
}
