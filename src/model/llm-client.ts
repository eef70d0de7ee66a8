/** The seam between the Worker and a model: one streaming request at a time. */
import type { StreamEvent } from "./events.js";
import type { Item } from "./items.js";
import type { RequestConfig } from "./request-config.js";
import type { ToolMeta } from "./tools.js";

/** Everything a provider adapter needs to build one request. */
export interface LlmRequest {
  system_prompt?: string;
  items: Item[];
  /** Sorted by name, so the prompt prefix stays byte-stable for provider caches. */
  tools: ToolMeta[];
  config: RequestConfig;
}

/**
 * A streaming LLM client. `stream` yields normalized events until the response ends; opening
 * failures and mid-stream failures are thrown as `LlmClientError`. Aborting `signal` must stop
 * the underlying request at once.
 */
export interface LlmClient {
  /** A short provider label for errors and logs ("openai", "anthropic", "mock", ...). */
  readonly provider: string;
  readonly model?: string;
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent>;
  /**
   * Optional: the same events as `stream`, in the same order and with the same failures, in the
   * batches they arrive in (one network read often completes hundreds of deltas). A consumer
   * that reads batches pays one await per batch instead of one per event; the Worker uses it
   * when a client has it.
   */
  streamBatches?(request: LlmRequest, signal: AbortSignal): AsyncIterable<readonly StreamEvent[]>;
}

export type LlmClientErrorKind =
  /** The provider answered with an HTTP error status. */
  | "http"
  /** The provider sent an error inside the stream (an `error` event, `response.failed`, ...). */
  | "api"
  /** The connection could not be made or broke. */
  | "network"
  /** No bytes for longer than the idle timeout. */
  | "timeout"
  /** The provider sent something we cannot interpret. */
  | "protocol"
  /** The request was aborted by its signal. */
  | "aborted"
  /** The client is misconfigured (no API key, unknown protocol, ...). */
  | "config";

/**
 * A path into the request that a provider's refusal names, as segments (`["messages", 3,
 * "content"]`), and where the refusal put it: OpenAI's `param`, a validator's `loc`, or the
 * start of the message (Anthropic: "messages.3.content.0: …").
 */
export interface RefusedPath {
  segments: readonly (string | number)[];
  from: "param" | "loc" | "message";
}

/** A typed LLM client failure with the context needed to act on it. */
export class LlmClientError extends Error {
  readonly kind: LlmClientErrorKind;
  readonly provider: string;
  readonly status?: number;
  readonly code?: string;
  readonly retryAfterMs?: number;
  /** The request fields the provider's refusal names (OpenAI `param`, a validator's `loc`), if any. */
  readonly fields?: readonly string[];
  /** The request paths the provider's refusal names, if any (a history element among them, maybe). */
  readonly paths?: readonly RefusedPath[];
  /**
   * The provider said, inside the stream, that the failure is temporary (overloaded, server
   * error, unavailable): the same request may succeed when sent again.
   */
  readonly transient: boolean;

  constructor(
    kind: LlmClientErrorKind,
    provider: string,
    message: string,
    details: {
      status?: number;
      code?: string;
      retryAfterMs?: number;
      fields?: readonly string[];
      paths?: readonly RefusedPath[];
      transient?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "LlmClientError";
    this.kind = kind;
    this.provider = provider;
    if (details.status !== undefined) this.status = details.status;
    if (details.code !== undefined) this.code = details.code;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    if (details.fields !== undefined && details.fields.length > 0) this.fields = details.fields;
    if (details.paths !== undefined && details.paths.length > 0) this.paths = details.paths;
    this.transient = details.transient === true;
  }
}
