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
   * A request failed before any event: returns what the adapter now leaves out of its requests
   * because of it (the optional fields a server refused), so the request is built and sent
   * again at once; empty when nothing changed. An adapter adjusts each thing only once.
   */
  adjustAfter?(error: LlmClientError): string[];
}
