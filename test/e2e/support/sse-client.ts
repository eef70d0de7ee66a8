/**
 * A small streaming SSE client for the session stream, like a browser `EventSource` but with
 * every frame visible: it keeps the connection open, parses `id:` and `data:` lines, skips
 * `: keepalive` comments, and hands out batches one at a time (or until a predicate holds).
 * `lastEventId` is the id of the last frame read, what an EventSource sends back as
 * `Last-Event-ID` when it reconnects.
 *
 * Boundary rule: test support; it knows the daemon only through HTTP.
 */
import type { ClientRequest, IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import type { OpenApiCheck } from "../../support/openapi-check.js";
import type { StreamPage } from "./daemon-harness.js";

/** One event of a batch. */
export type StreamEvent = StreamPage["events"][number];

/** One `data:` frame of the stream, with the `id:` line that preceded it (if any). */
export interface StreamFrame {
  id: string | undefined;
  batch: StreamPage;
  /** UTF-8 bytes of the frame as received (its lines and the blank line that ends it). */
  bytes: number;
}

/** A stream request the daemon refused before streaming (problem JSON). */
export class StreamRefusedError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`stream refused: ${status} ${body}`);
    this.name = "StreamRefusedError";
  }

  /** The problem JSON body. */
  problem(): Record<string, unknown> {
    return JSON.parse(this.body) as Record<string, unknown>;
  }
}

/** An open SSE connection. */
export class SseConnection {
  /** The id of the last frame read (what a reconnect sends as Last-Event-ID). */
  lastEventId: string | undefined;
  /** Every frame read so far, in order. */
  readonly frames: StreamFrame[] = [];
  /** How many keepalive comments were seen. */
  keepalives = 0;
  private buffered = "";
  private readonly ready: StreamFrame[] = [];
  private waiter: (() => void) | null = null;
  private ended = false;
  private failure: Error | null = null;

  private constructor(
    private readonly req: ClientRequest,
    readonly response: IncomingMessage,
    private readonly checkFrame: ((data: string) => void) | undefined,
  ) {
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => this.onData(chunk));
    response.on("end", () => this.finish(null));
    response.on("error", (error) => this.finish(error));
    response.on("close", () => this.finish(null));
  }

  /**
   * Open a stream on `path`. Resolves once the daemon answered 200 with the stream headers;
   * rejects with StreamRefusedError (carrying the problem JSON) otherwise.
   */
  static open(
    port: number,
    path: string,
    headers: Record<string, string>,
    openapi?: OpenApiCheck,
    address = "127.0.0.1",
  ): Promise<SseConnection> {
    const authority = `${address.includes(":") ? `[${address}]` : address}:${port}`;
    return new Promise((done, fail) => {
      const req = httpRequest(
        {
          host: address,
          port,
          method: "GET",
          path,
          headers: { host: authority, accept: "text/event-stream", ...headers },
        },
        (res) => {
          if (res.statusCode !== 200) {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () => {
              const body = Buffer.concat(chunks).toString("utf8");
              try {
                openapi?.checkAnswer("GET", path, res.statusCode ?? 0, res.headers["content-type"], body);
              } catch (error) {
                fail(error);
                return;
              }
              fail(new StreamRefusedError(res.statusCode ?? 0, body));
            });
            return;
          }
          done(
            new SseConnection(
              req,
              res,
              openapi === undefined ? undefined : (data) => openapi.checkFrame(path, data),
            ),
          );
        },
      );
      req.on("error", fail);
      req.end();
    });
  }

  /** True once the daemon ended the stream (or the connection broke). */
  get closed(): boolean {
    return this.ended;
  }

  /** The next frame; rejects after `timeoutMs` or when the stream ends first. */
  async next(timeoutMs = 10_000): Promise<StreamFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = this.ready.shift();
      if (frame !== undefined) return frame;
      if (this.ended) {
        throw new Error(
          `the stream ended before the next frame${this.failure ? `: ${this.failure.message}` : ""}`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no stream frame within ${timeoutMs} ms`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left);
        this.waiter = () => {
          clearTimeout(timer);
          wake();
        };
      });
      this.waiter = null;
    }
  }

  /** Batches as they arrive (an async iterator that stops when the stream ends). */
  async *batches(timeoutMs = 10_000): AsyncGenerator<StreamFrame> {
    for (;;) {
      if (this.ended && this.ready.length === 0) return;
      yield await this.next(timeoutMs);
    }
  }

  /** Read frames until one holds an event matching `until`; returns the frames read (in order). */
  async readUntil(until: (event: StreamEvent) => boolean, timeoutMs = 15_000): Promise<StreamFrame[]> {
    const deadline = Date.now() + timeoutMs;
    const read: StreamFrame[] = [];
    for (;;) {
      const frame = await this.next(Math.max(1, deadline - Date.now()));
      read.push(frame);
      if (frame.batch.events.some(until)) return read;
    }
  }

  /** Wait until the daemon ends the stream; rejects after `timeoutMs`. */
  async waitClosed(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      if (Date.now() > deadline) throw new Error(`the stream was not closed within ${timeoutMs} ms`);
      await new Promise((wake) => setTimeout(wake, 20));
    }
  }

  /** Close the connection (client side). */
  close(): void {
    this.req.destroy();
    this.finish(null);
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    for (;;) {
      const end = this.buffered.indexOf("\n\n");
      if (end < 0) return;
      const block = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length === 0) {
        this.keepalives += 1;
        continue;
      }
      try {
        this.checkFrame?.(data.join("\n"));
      } catch (error) {
        this.finish(error as Error);
        this.req.destroy();
        return;
      }
      const frame: StreamFrame = {
        id,
        batch: JSON.parse(data.join("\n")) as StreamPage,
        bytes: Buffer.byteLength(block, "utf8") + 2,
      };
      if (id !== undefined) this.lastEventId = id;
      this.frames.push(frame);
      this.ready.push(frame);
      this.waiter?.();
    }
  }

  private finish(error: Error | null): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.waiter?.();
  }
}

/** The events of frames, flattened in order. */
export function eventsOf(frames: readonly StreamFrame[]): StreamEvent[] {
  return frames.flatMap((frame) => frame.batch.events);
}

/**
 * Check that the frames carry contiguous sequences starting after `after`: every event has the
 * next sequence and each frame's cursor is its last event's sequence (or unchanged when empty).
 * Returns the last cursor. Throws a descriptive error otherwise.
 */
export function checkContiguous(frames: readonly StreamFrame[], after: number): number {
  let cursor = after;
  for (const frame of frames) {
    for (const event of frame.batch.events) {
      if (event.type === "reset") throw new Error(`unexpected reset at cursor ${cursor}`);
      if (event.sequence !== cursor + 1) {
        throw new Error(`event ${event.type} has sequence ${event.sequence}, expected ${cursor + 1}`);
      }
      cursor = event.sequence;
    }
    if (frame.batch.cursor !== cursor) {
      throw new Error(`frame cursor ${frame.batch.cursor} does not match its last event ${cursor}`);
    }
  }
  return cursor;
}
