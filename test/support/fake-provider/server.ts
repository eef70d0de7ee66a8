/**
 * The fake provider: a real HTTP server on 127.0.0.1 speaking the streaming formats of Chat
 * Completions (`/v1/chat/completions`), Responses (`/v1/responses`), Anthropic Messages
 * (`/v1/messages`) and Gemini (`/v1beta/models/{model}:streamGenerateContent`). Each request
 * is recorded, then answered by the next queued reply or, when the queue is empty, by
 * `script(request)` — unless the request breaks one of the vendors' rules (`rule-book.ts`),
 * which is answered with that vendor's own 400 and leaves the queue as it was. Another process
 * can drive it through `POST /_fake/replies` (a JSON array of replies), `GET /_fake/requests`
 * and `POST /_fake/reset`.
 *
 * Boundary rule: test support only; it knows the wire formats through the encoders and
 * nothing about Skein's own code.
 */
import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { contextOverflowReply, promptTokensOf } from "./context-overflow.js";
import type { EncodeContext } from "./encode-context.js";
import { encodeReply, errorBody, geminiModelOfPath, protocolOfPath } from "./encode-reply.js";
import type { Delivery, FakeProtocol, Reply } from "./reply.js";
import { text } from "./reply.js";
import { vendorRejection } from "./rule-book.js";

/** One request as the fake provider received it. */
export interface RecordedRequest {
  index: number;
  method: string;
  /** Path and query string. */
  path: string;
  protocol: FakeProtocol | undefined;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
  rawBody: string;
  /** Resolves once the exchange is over: the reply ended or the connection closed. */
  closed: Promise<void>;
  /** True when the client closed the connection before the reply was complete. */
  clientAborted: boolean;
  /**
   * Wall-clock ms (`performance.timeOrigin + performance.now()`) when the request's headers
   * arrived, before its body was read: benches subtract the provider's own time from a turn.
   */
  receivedAt: number;
  /** The same clock when the last byte of the answer was handed to the socket; undefined until then. */
  finishedAt: number | undefined;
}

/** Decides the reply to a request that found the queue empty. */
export type Script = (request: RecordedRequest) => Reply | Promise<Reply>;

export interface FakeProviderOptions {
  /** Default 0: a random free port. */
  port?: number;
  host?: string;
}

/** Above this many buffered characters a fast stream is written out. */
const batchChars = 64 * 1024;

/** A running fake provider. */
export class FakeProvider {
  /** The reply when no queued reply is left. Default: a short text answer. */
  script: Script = () => text("Hello from the fake provider.");
  readonly requests: RecordedRequest[] = [];
  private readonly queued: Reply[] = [];
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  private idCounter = 0;
  /** Responses function call item id → the reasoning item it came after. */
  private readonly callPairs = new Map<string, string>();
  /** Anthropic thinking signatures issued → the thinking text each is valid for. */
  private readonly signatures = new Map<string, string>();
  /**
   * The model's context window in the fake's tokens (`promptTokensOf` the body): a longer
   * request gets the vendor's "context too long" answer. Undefined: no limit.
   */
  contextWindow: number | undefined = undefined;

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  /** Starts a server on 127.0.0.1 (random port unless given). */
  static async start(options: FakeProviderOptions = {}): Promise<FakeProvider> {
    const server = createServer();
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
    await once(server, "listening");
    const address = server.address() as AddressInfo;
    const fake = new FakeProvider(server, `http://${address.address}:${address.port}`);
    server.on("request", (request, response) => {
      fake.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
        response.end(`fake provider failure: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
    return fake;
  }

  /** The base URL with a version segment, for profiles that want one (`.../v1`). */
  baseUrlWith(version: string): string {
    return `${this.baseUrl}/${version}`;
  }

  /** Queues replies, served in order before the script is consulted. */
  queue(...replies: Reply[]): void {
    this.queued.push(...replies);
  }

  /** The most recent request (throws when there is none). */
  get lastRequest(): RecordedRequest {
    const last = this.requests[this.requests.length - 1];
    if (last === undefined) throw new Error("the fake provider has received no request");
    return last;
  }

  /** Resolves once `count` requests have arrived in total. */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Forgets recorded requests and queued replies. */
  reset(): void {
    this.requests.length = 0;
    this.queued.length = 0;
    this.contextWindow = undefined;
  }

  /** Stops the server, cutting every open connection (hung replies included). */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private nextId = (prefix: string): string =>
    `${prefix}_fake${(++this.idCounter).toString().padStart(6, "0")}`;

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const receivedAt = wallClock();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    const path = request.url ?? "/";
    if (path.startsWith("/_fake/")) {
      this.control(request.method ?? "GET", path, rawBody, response);
      return;
    }
    let body: unknown;
    try {
      body = rawBody.length > 0 ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    let markClosed = () => {};
    const closed = new Promise<void>((resolve) => {
      markClosed = resolve;
    });
    const record: RecordedRequest = {
      index: this.requests.length,
      method: request.method ?? "GET",
      path,
      protocol: protocolOfPath(path),
      headers: request.headers,
      body,
      rawBody,
      closed,
      clientAborted: false,
      receivedAt,
      finishedAt: undefined,
    };
    // 'finish': the whole answer is written out (not emitted for a destroyed or hung answer).
    response.once("finish", () => {
      record.finishedAt = wallClock();
    });
    let selfDestroyed = false;
    response.on("close", () => {
      if (!response.writableFinished && !selfDestroyed) record.clientAborted = true;
      markClosed();
    });
    this.requests.push(record);
    for (const waiter of this.waiters.splice(0)) {
      if (this.requests.length >= waiter.count) waiter.resolve();
      else this.waiters.push(waiter);
    }
    const protocol = record.protocol;
    if (protocol === undefined || record.method !== "POST") {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { message: `the fake provider has no route ${record.method} ${path}` } }),
      );
      return;
    }
    const tokens = promptTokensOf(rawBody);
    const rejection =
      vendorRejection(protocol, body, modelOf(protocol, record), this.callPairs, this.signatures) ??
      (this.contextWindow !== undefined && tokens > this.contextWindow
        ? contextOverflowReply(protocol, tokens, this.contextWindow)
        : undefined);
    const reply = rejection ?? this.queued.shift() ?? (await this.script(record));
    const destroy = () => {
      selfDestroyed = true;
      response.socket?.destroy();
    };
    await this.answer(protocol, record, reply, response, destroy);
  }

  private async answer(
    protocol: FakeProtocol,
    record: RecordedRequest,
    reply: Reply,
    response: ServerResponse,
    destroy: () => void,
  ): Promise<void> {
    switch (reply.kind) {
      case "hang":
        return;
      case "http_error": {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
        response.writeHead(reply.status, headers);
        response.end(errorBody(protocol, reply));
        return;
      }
      case "raw":
        response.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "text/event-stream" });
        await writeFrames(response, reply.frames, reply.delivery ?? {}, destroy);
        return;
      case "stream": {
        const context: EncodeContext = {
          model: modelOf(protocol, record),
          nextId: this.nextId,
          pairCall: (callItemId, reasoningId) => this.callPairs.set(callItemId, reasoningId),
          signThinking: (signature, thinking) => this.signatures.set(signature, thinking),
        };
        response.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          connection: "keep-alive",
        });
        await writeFrames(response, encodeReply(protocol, reply, context), reply.delivery ?? {}, destroy);
        return;
      }
      default: {
        const unreachable: never = reply;
        throw new Error(`unknown reply ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private control(method: string, path: string, rawBody: string, response: ServerResponse): void {
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    if (method === "POST" && path === "/_fake/replies") {
      const replies: unknown = JSON.parse(rawBody);
      this.queue(...((Array.isArray(replies) ? replies : [replies]) as Reply[]));
      json(200, { queued: this.queued.length });
    } else if (method === "GET" && path === "/_fake/requests") {
      json(
        200,
        this.requests.map(({ closed: _closed, ...rest }) => rest),
      );
    } else if (method === "POST" && path === "/_fake/reset") {
      this.reset();
      json(200, { reset: true });
    } else {
      json(404, { error: `no control route ${method} ${path}` });
    }
  }
}

/** Starts a fake provider (for standalone scripts and other processes' tests). */
export function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  return FakeProvider.start(options);
}

/** Wall-clock ms with sub-millisecond precision, comparable across processes of one machine. */
function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

function modelOf(protocol: FakeProtocol, record: RecordedRequest): string {
  if (protocol === "gemini") return geminiModelOfPath(record.path) ?? "fake-model";
  const body = record.body;
  if (typeof body === "object" && body !== null && "model" in body && typeof body.model === "string") {
    return body.model;
  }
  return "fake-model";
}

/** Resolves on the next `drain` or on `close`, leaving no listener behind. */
function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}

/** Writes one chunk and waits until it is handed to the socket; false once the connection is gone. */
function writeChunk(response: ServerResponse, chunk: string | Uint8Array): Promise<boolean> {
  if (response.destroyed || response.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    response.write(chunk, (error) => resolve(error === undefined || error === null));
  });
}

/**
 * Writes SSE events with the delivery options. Without options, events are batched into
 * large writes (throughput runs); with options, each event (or byte chunk) is its own write.
 */
async function writeFrames(
  response: ServerResponse,
  frames: Iterable<string>,
  delivery: Delivery,
  destroy: () => void,
): Promise<void> {
  const { delayMs, chunkSize, disconnectAfter, hangAfter, eventsPerSecond } = delivery;
  const paced = delayMs !== undefined || chunkSize !== undefined || eventsPerSecond !== undefined;
  const startedAt = performance.now();
  const limit = Math.min(disconnectAfter ?? Number.POSITIVE_INFINITY, hangAfter ?? Number.POSITIVE_INFINITY);
  let sent = 0;
  let batch = "";
  let carry: Buffer = Buffer.alloc(0);
  for (const frame of frames) {
    if (sent >= limit) break;
    if (delayMs !== undefined && sent > 0) await sleep(delayMs);
    if (eventsPerSecond !== undefined) {
      const due = startedAt + (sent * 1000) / eventsPerSecond - performance.now();
      if (due > 0) await sleep(due);
    }
    if (response.destroyed) return;
    if (chunkSize !== undefined) {
      carry = Buffer.concat([carry, Buffer.from(frame, "utf8")]);
      while (carry.length >= chunkSize) {
        if (!(await writeChunk(response, carry.subarray(0, chunkSize)))) return;
        carry = carry.subarray(chunkSize);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } else if (paced || limit !== Number.POSITIVE_INFINITY) {
      if (!(await writeChunk(response, frame))) return;
    } else {
      batch += frame;
      if (batch.length >= batchChars) {
        const ok = response.write(batch);
        batch = "";
        if (!ok) await drainedOrClosed(response);
        if (response.destroyed) return;
      }
    }
    sent++;
  }
  if (batch.length > 0 && !(await writeChunk(response, batch))) return;
  if (carry.length > 0 && !(await writeChunk(response, carry))) return;
  if (disconnectAfter !== undefined && sent >= disconnectAfter) {
    destroy();
    return;
  }
  if (hangAfter !== undefined && sent >= hangAfter) return;
  response.end();
}
