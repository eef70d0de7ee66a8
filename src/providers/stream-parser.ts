/**
 * The contract between the generic streaming client and one wire protocol: a protocol adapter
 * builds the HTTP request and makes a fresh parser per response; a parser is a pure state
 * machine (SSE message in → normalized events out), so any split of the byte stream yields the
 * same events.
 *
 * Boundary rule: types only.
 */
import type { StreamEvent } from "../model/events.js";
import type { LlmClientError, LlmRequest } from "../model/llm-client.js";
import type { SseMessage } from "./sse-decoder.js";

/** Everything needed to send one streaming request. */
export interface HttpRequestSpec {
  url: string;
  headers: Record<string, string>;
  /** The JSON body, already serialized. */
  body: string;
}

/**
 * One response's decoder. `push` and `end` throw `LlmClientError` for provider error events
 * (kind "api"), garbage (kind "protocol") and a stream that ended before its terminal event
 * (kind "network").
 */
export interface StreamParser {
  /** Maps one SSE message to the events it produces (possibly none). */
  push(message: SseMessage): StreamEvent[];
  /**
   * `push`, appending the events to `out` instead of a fresh array (one array less per delta).
   * When it throws, the events of this message it already appended are left in `out`: the
   * caller drops them (see `parseBatch`).
   */
  pushInto(message: SseMessage, out: StreamEvent[]): void;
  /** The byte stream ended: returns the closing events, or throws if the response is incomplete. */
  end(): StreamEvent[];
  /** `block_abort` events for every block still open, used when the stream fails mid-way. */
  abortOpenBlocks(reason: string): StreamEvent[];
}

/** One wire protocol bound to a provider profile. */
export interface ProtocolAdapter {
  /** The label used in errors and as `LlmClient.provider`. */
  readonly provider: string;
  readonly model: string;
  buildHttpRequest(request: LlmRequest): HttpRequestSpec;
  createParser(): StreamParser;
  /** A whole JSON response (a server that did not stream) as the messages of its stream. */
  wholeResponse?(document: unknown): SseMessage[];
  /**
   * `request` failed before any event: the request to send again at once instead, and what it
   * leaves out (the optional fields a server refused, which the adapter leaves out of every
   * later request too; or the history item the refusal names, left out of this request only),
   * or undefined when nothing can be adjusted.
   */
  adjustAfter?(error: LlmClientError, request: LlmRequest): RequestAdjustment | undefined;
}

/** A refused request adjusted to be sent again. */
export interface RequestAdjustment {
  request: LlmRequest;
  /** What was left out, as a reader would name it ("stream_options", "messages[3]: the user message …"). */
  leftOut: string[];
}
