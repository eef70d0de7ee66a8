/**
 * One streaming HTTP request with a lifetime: POST, wait for the headers, read body chunks.
 * An idle timer (no bytes for `idleTimeoutMs`, headers included) turns a stall into a
 * "timeout" error; the caller's AbortSignal (or `close()`) tears the connection down at once;
 * every failure is a typed `LlmClientError`.
 *
 * Boundary rule: bytes only; knows nothing about SSE or any provider's payloads.
 */
import { Agent, fetch as undiciFetch } from "undici";
import { LlmClientError } from "../model/llm-client.js";
import { httpStatusError, transportError } from "./http-error.js";
import type { HttpRequestSpec } from "./stream-parser.js";

/** How one request behaves. */
export interface HttpStreamOptions {
  provider: string;
  signal: AbortSignal;
  /** No bytes for this long (waiting for headers or body) is a "timeout" error. */
  idleTimeoutMs: number;
}

/** Error bodies beyond this are cut: only the provider's message is needed. */
const maxErrorBodyBytes = 256 * 1024;

let sharedDispatcher: Agent | undefined;

/**
 * undici's own header/body timeouts (300 s) are switched off so the idle timer is the one
 * rule; connect timeouts stay (they surface as retryable connect errors).
 */
function dispatcher(): Agent {
  sharedDispatcher ??= new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  return sharedDispatcher;
}

/** A single streaming request; `close()` is idempotent and safe at any point. */
export class HttpStream {
  private readonly controller = new AbortController();
  private readonly onCallerAbort = () => this.controller.abort();
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  private closed = false;
  private body: ReadableStream<Uint8Array> | undefined;

  constructor(
    private readonly spec: HttpRequestSpec,
    private readonly options: HttpStreamOptions,
  ) {}

  /** Sends the request and waits for a successful status; throws a typed error otherwise. */
  async open(): Promise<void> {
    const { signal } = this.options;
    if (signal.aborted) throw this.abortedError();
    signal.addEventListener("abort", this.onCallerAbort, { once: true });
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.options.idleTimeoutMs);
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(this.spec.url, {
        method: "POST",
        headers: this.spec.headers,
        body: this.spec.body,
        signal: this.controller.signal,
        dispatcher: dispatcher(),
      });
    } catch (error) {
      this.close();
      throw this.failure("connect", error);
    }
    this.timer.refresh();
    if (!response.ok) {
      let text = "";
      try {
        text = await readLimited(response.body, maxErrorBodyBytes);
      } catch (error) {
        this.close();
        throw this.failure("stream", error);
      }
      this.close();
      throw httpStatusError(
        this.options.provider,
        response.status,
        response.statusText,
        response.headers,
        text,
      );
    }
    if (response.body === null) {
      this.close();
      throw new LlmClientError("protocol", this.options.provider, "the provider answered without a body");
    }
    this.body = response.body as ReadableStream<Uint8Array>;
  }

  /** The body's chunks as they arrive; typed errors for stalls, aborts and broken connections. */
  async *chunks(): AsyncGenerator<Uint8Array> {
    const body = this.body;
    if (body === undefined) throw new Error("HttpStream.chunks() called before a successful open()");
    const reader = body.getReader();
    try {
      for (;;) {
        const result = await reader.read().catch((error: unknown) => {
          throw this.failure("stream", error);
        });
        if (result.done) return;
        this.timer?.refresh();
        yield result.value;
      }
    } finally {
      reader.releaseLock();
      this.close();
    }
  }

  /** Aborts the request if it is still running and stops the idle timer. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.options.signal.removeEventListener("abort", this.onCallerAbort);
    this.controller.abort();
  }

  private failure(phase: "connect" | "stream", error: unknown): LlmClientError {
    if (error instanceof LlmClientError) return error;
    if (this.options.signal.aborted) return this.abortedError();
    if (this.timedOut) {
      return new LlmClientError(
        "timeout",
        this.options.provider,
        `${this.options.provider}: no data for ${this.options.idleTimeoutMs} ms; the stream stalled`,
        { code: "idle_timeout" },
      );
    }
    return transportError(this.options.provider, phase, error);
  }

  private abortedError(): LlmClientError {
    return new LlmClientError("aborted", this.options.provider, `${this.options.provider}: request aborted`, {
      cause: this.options.signal.reason,
    });
  }
}

/** Reads at most `limit` bytes of a body as UTF-8 text, then cancels the rest. */
async function readLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (body === null) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      text += decoder.decode(value, { stream: true });
      if (received >= limit) {
        await reader.cancel();
        break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  return text + decoder.decode();
}
