/**
 * One streaming HTTP request with a lifetime: POST, wait for the headers, read body chunks.
 * An idle timer (no bytes for `idleTimeoutMs`, headers included) turns a stall into a
 * "timeout" error; the caller's AbortSignal (or `close()`) tears the connection down at once;
 * every failure is a typed `LlmClientError`.
 *
 * Boundary rule: bytes only; knows nothing about SSE or any provider's payloads.
 */
import { STATUS_CODES } from "node:http";
import type { Readable } from "node:stream";
import { Agent, type Dispatcher } from "undici";
import { LlmClientError } from "../model/llm-client.js";
import { type HeaderSource, httpStatusError, transportError } from "./http-error.js";
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
 * The reason `close()` aborts with: one made up front, because `abort()` without a reason builds
 * a DOMException with its stack on every request, even one whose body was read to the end.
 */
const closedReason = new Error("the stream was closed");

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
  /** The body was read to its end. */
  private ended = false;
  private body: Readable | undefined;
  /** The successful response's media type, lower-cased without parameters ("text/event-stream"). */
  mediaType: string | undefined;

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
    // undici's own request API rather than its fetch: a Node stream body instead of a web
    // stream per response (a promise and several objects per chunk less), and no redirect
    // followed behind the caller's back (a provider's 3xx is an error, its key never re-sent).
    // The dispatcher's own method, not undici's top-level `request`: the daemon's bundle carries
    // only undici's Agent (scripts/daemon-bundle-undici.mjs).
    let response: Dispatcher.ResponseData;
    try {
      const url = new URL(this.spec.url);
      response = await dispatcher().request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: requestHeaders(this.spec.headers),
        body: this.spec.body,
        signal: this.controller.signal,
      });
    } catch (error) {
      this.close();
      throw this.failure("connect", error);
    }
    this.timer.refresh();
    const status = response.statusCode;
    if (status < 200 || status > 299) {
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
        status,
        STATUS_CODES[status] ?? "",
        headerSource(response.headers),
        text,
      );
    }
    this.body = response.body;
    const type = headerSource(response.headers).get("content-type");
    if (type !== null) this.mediaType = type.split(";")[0]!.trim().toLowerCase();
  }

  /** The body's chunks as they arrive; typed errors for stalls, aborts and broken connections. */
  async *chunks(): AsyncGenerator<Uint8Array> {
    const body = this.body;
    if (body === undefined) throw new Error("HttpStream.chunks() called before a successful open()");
    const iterator = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
    try {
      for (;;) {
        const result = await iterator.next().catch((error: unknown) => {
          throw this.failure("stream", error);
        });
        if (result.done === true) {
          // The response ended: nothing is left to tear down, and an abort would only dispatch
          // its event to the listeners of a finished request (~20 µs a turn).
          this.ended = true;
          return;
        }
        this.timer?.refresh();
        yield result.value;
      }
    } finally {
      this.close();
    }
  }

  /** Aborts the request if it is still running (its body not read to the end) and stops the idle timer. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.options.signal.removeEventListener("abort", this.onCallerAbort);
    if (!this.ended) this.controller.abort(closedReason);
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

/**
 * The request's headers: the spec's, plus an explicit identity encoding (a compressed event
 * stream would hold deltas back until a compressed block fills) and a user agent.
 */
function requestHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return { "accept-encoding": "identity", "user-agent": "skein", ...headers };
}

/** Response headers as error handling reads them (undici gives a plain object, lowercase names). */
function headerSource(headers: Dispatcher.ResponseData["headers"]): HeaderSource {
  return {
    get: (name) => {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/** Reads at most `limit` bytes of a body as UTF-8 text, then drops the rest. */
async function readLimited(body: Readable, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let received = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    text += decoder.decode(chunk, { stream: true });
    // Leaving the loop destroys the body: the rest is never read.
    if (received >= limit) break;
  }
  return text + decoder.decode();
}
