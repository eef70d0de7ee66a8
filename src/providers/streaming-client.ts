/**
 * The generic `LlmClient` over HTTP + SSE: builds the request through a protocol adapter,
 * opens the stream (retrying transient failures — HTTP, connection, and the provider's own
 * in-stream "overloaded"/"server error" — as long as nothing but the response's start was
 * delivered, each retry reported as a `retry` event; a request the adapter adjusts after a
 * refusal is rebuilt and sent again once), decodes bytes → SSE → normalized events, stamps
 * every provider payload (reasoning data, signatures) with the origin {provider, model}, and
 * ends with a typed error when anything fails. Blocks still open when a stream fails mid-way
 * are closed with `block_abort` before the error is thrown.
 *
 * Boundary rule: protocol-agnostic; everything wire-specific lives in the adapters.
 */
import type { RetryNotice, StreamEvent } from "../model/events.js";
import type { ItemOrigin } from "../model/items.js";
import { type LlmClient, LlmClientError, type LlmRequest } from "../model/llm-client.js";
import { HttpStream } from "./http-stream.js";
import { isRetryable, type RetryPolicy, retryDelayMs, sleepUnlessAborted } from "./retry-policy.js";
import { SseDecoder, type SseMessage, SseOverflowError } from "./sse-decoder.js";
import type { ProtocolAdapter, StreamParser } from "./stream-parser.js";
import { isJsonMediaType, wholeResponseChunks } from "./whole-response.js";

/** Transport settings of a client. */
export interface StreamingClientSettings {
  idleTimeoutMs: number;
  retry: RetryPolicy;
  /** Jitter source, injectable for deterministic tests. */
  random: () => number;
}

/** An `LlmClient` for one provider profile. */
export class StreamingLlmClient implements LlmClient {
  readonly provider: string;
  readonly model: string;

  constructor(
    private readonly adapter: ProtocolAdapter,
    private readonly settings: StreamingClientSettings,
  ) {
    this.provider = adapter.provider;
    this.model = adapter.model;
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    for await (const batch of this.streamBatches(request, signal)) {
      for (const event of batch) {
        // Events already decoded from the last chunk are dropped once cancelled.
        if (signal.aborted) throw abortedError(this.provider, signal);
        yield event;
      }
    }
  }

  /**
   * The events of `stream` in the batches one network read completes: the per-event cost of a
   * fast stream is then plain function calls, not an await (and its promises) per delta.
   */
  async *streamBatches(request: LlmRequest, signal: AbortSignal): AsyncGenerator<readonly StreamEvent[]> {
    let sent = request;
    let spec = this.adapter.buildHttpRequest(sent);
    const { retry } = this.settings;
    const startedAt = Date.now();
    let attempt = 0;
    let adjustedOnce = false;
    for (;;) {
      attempt++;
      const http = new HttpStream(spec, {
        provider: this.provider,
        signal,
        idleTimeoutMs: this.settings.idleTimeoutMs,
      });
      const parser = this.adapter.createParser();
      const progress = { delivered: false };
      try {
        yield* this.attemptBatches(http, parser, signal, progress);
        return;
      } catch (thrown) {
        // Whatever broke after the caller aborted is the abort's consequence.
        const error = signal.aborted
          ? abortedError(this.provider, signal)
          : asClientError(thrown, this.provider);
        if (progress.delivered) {
          if (error.kind !== "aborted") {
            const aborts = parser.abortOpenBlocks(error.message);
            if (aborts.length > 0) yield aborts;
          }
          throw error;
        }
        // One adjusted resend per request: a server that refuses the adjusted body fails it.
        const adjustment = adjustedOnce ? undefined : this.adapter.adjustAfter?.(error, sent);
        if (adjustment !== undefined) {
          adjustedOnce = true;
          sent = adjustment.request;
          spec = this.adapter.buildHttpRequest(sent);
          const adjusted = adjustment.leftOut;
          const reason = `${error.message} (sent again without ${adjusted.join(", ")})`;
          yield [
            retryNotice(error, { attempt, max_attempts: retry.maxAttempts, delay_ms: 0, reason, adjusted }),
          ];
          attempt--;
          continue;
        }
        if (!isRetryable(error)) throw error;
        const delay = retryDelayMs(retry, attempt, error, Date.now() - startedAt, this.settings.random);
        if (delay === undefined) throw error;
        yield [
          retryNotice(error, {
            attempt,
            max_attempts: retry.maxAttempts,
            delay_ms: delay,
            reason: error.message,
          }),
        ];
        await sleepUnlessAborted(delay, signal, this.provider);
      } finally {
        http.close();
      }
    }
  }

  /**
   * One attempt's batches, each event stamped with the origin; `progress.delivered` turns true
   * once anything a consumer keeps came (from then on a failure is not retried).
   */
  private async *attemptBatches(
    http: HttpStream,
    parser: StreamParser,
    signal: AbortSignal,
    progress: { delivered: boolean },
  ): AsyncGenerator<StreamEvent[]> {
    const origin: ItemOrigin = { provider: this.provider, model: this.model };
    await http.open();
    const convert = this.adapter.wholeResponse;
    const chunks =
      isJsonMediaType(http.mediaType) && convert !== undefined
        ? wholeResponseChunks(http.chunks(), (document) => convert(document), this.provider)
        : http.chunks();
    for await (const events of decodeStream(chunks, parser, this.provider)) {
      // Events already decoded from the last chunk are dropped once cancelled.
      if (signal.aborted) throw abortedError(this.provider, signal);
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        // The start of a response (and keepalives) carry nothing a consumer keeps.
        if (event.type !== "ping" && !(event.type === "status" && event.status === "started")) {
          progress.delivered = true;
        }
        events[i] = withOrigin(event, origin);
      }
      yield events;
    }
  }
}

/** The `retry` event announcing another attempt, with the failure's HTTP status when it had one. */
function retryNotice(error: LlmClientError, retry: Omit<RetryNotice, "status">): StreamEvent {
  const notice: StreamEvent = { type: "retry", retry };
  if (error.status !== undefined) notice.retry.status = error.status;
  return notice;
}

/**
 * Byte chunks → batches of normalized events (one batch per chunk, then the closing batch).
 * This is the whole decoding path, shared by the client and the benchmark.
 */
export async function* decodeStream(
  chunks: AsyncIterable<Uint8Array>,
  parser: StreamParser,
  provider: string,
): AsyncGenerator<StreamEvent[]> {
  const decoder = new SseDecoder();
  try {
    for await (const chunk of chunks) {
      const messages = decoder.decode(chunk);
      if (messages.length > 0) yield* parseBatch(parser, messages, false);
    }
    yield* parseBatch(parser, decoder.end(), true);
  } catch (error) {
    if (error instanceof SseOverflowError) {
      throw new LlmClientError("protocol", provider, `${provider}: ${error.message}`, {
        code: "event_too_large",
      });
    }
    throw error;
  }
}

/**
 * The events of a run of messages (and of the end of the stream when `last`). When the parser
 * fails part-way, the events produced before the failure are still delivered, then the error.
 */
function* parseBatch(
  parser: StreamParser,
  messages: readonly SseMessage[],
  last: boolean,
): Generator<StreamEvent[]> {
  const batch: StreamEvent[] = [];
  let failure: unknown;
  let failed = false;
  // The events of the messages before the failing one: what that one appended goes.
  let complete = 0;
  try {
    for (const message of messages) {
      parser.pushInto(message, batch);
      complete = batch.length;
    }
    if (last) for (const event of parser.end()) batch.push(event);
  } catch (error) {
    failure = error;
    failed = true;
    batch.length = complete;
  }
  if (batch.length > 0) yield batch;
  if (failed) throw failure;
}

/** `event` with its provider payload stamped with `origin` (events without one pass unchanged). */
function withOrigin(event: StreamEvent, origin: ItemOrigin): StreamEvent {
  if (event.type === "block_stop") {
    if (event.reasoning !== undefined) return { ...event, reasoning: { ...event.reasoning, origin } };
    if (event.signature !== undefined) return { ...event, origin };
  } else if (
    event.type === "block_start" &&
    event.block.type === "tool_use" &&
    event.block.signature !== undefined
  ) {
    return { ...event, block: { ...event.block, origin } };
  }
  return event;
}

function abortedError(provider: string, signal: AbortSignal): LlmClientError {
  return new LlmClientError("aborted", provider, `${provider}: request aborted`, { cause: signal.reason });
}

/** Anything thrown on the way becomes an LlmClientError; a non-client error is a bug, reported as protocol. */
function asClientError(thrown: unknown, provider: string): LlmClientError {
  if (thrown instanceof LlmClientError) return thrown;
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new LlmClientError(
    "protocol",
    provider,
    `${provider}: unexpected failure while streaming: ${message}`,
    {
      cause: thrown,
    },
  );
}
