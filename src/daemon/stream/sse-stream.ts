/**
 * One SSE connection to a session feed, served on a raw `ServerResponse` (a hijacked Fastify
 * reply). It writes the first batch at once, then on each wake reads everything since its
 * cursor and writes it as one frame, and acknowledges the wake only once the frame is written.
 * A frame holds at most `maxFrameBytes` of events: a longer read is sent as its first frame's
 * worth, and the acknowledgement of that frame wakes the connection at once for the rest.
 *
 * Slow clients: while `res.write` reports a full buffer the connection neither acknowledges nor
 * reads; memory per connection is therefore about one frame. If the socket does not drain in
 * time, or its buffer passes a byte limit, the socket is destroyed. If the feed's replay window
 * no longer holds the connection's cursor when it reads (it fell behind), the response is ended:
 * the client reconnects with its last cursor and gets a `replay_unavailable` reset with a
 * snapshot, which this connection cannot build. Either way a client that does not keep up is
 * cut off and recovers by reconnecting; it never slows the feed.
 *
 * Boundary rule: never throws after the headers are written; a failed write ends the connection.
 */
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { EncodedEvent } from "./encoded-event.js";
import type { FeedWatcher, SessionFeed } from "./session-feed.js";
import {
  type BatchReset,
  DEFAULT_MAX_FRAME_BYTES,
  encodeBatchFrame,
  eventsInFrame,
  KEEPALIVE_FRAME,
} from "./sse-frame.js";

/** The batch sent on connect: a replay (events after the client's cursor) or a reset with a snapshot. */
export interface FirstBatch {
  /** The feed sequence the batch brings the client to. */
  readonly cursor: number;
  /** Events after the client's cursor through `cursor` (empty with a reset). */
  readonly events: readonly EncodedEvent[];
  readonly reset?: BatchReset;
}

/** How to serve one stream connection. */
export interface SessionStreamOptions {
  readonly feed: SessionFeed;
  readonly first: FirstBatch;
  /** A keepalive comment is written after this long with nothing sent (default 5000 ms). */
  readonly keepaliveMs?: number;
  /** A socket that stays full this long is destroyed (default 15000 ms). */
  readonly drainTimeoutMs?: number;
  /** A socket holding more unsent bytes than this is destroyed (default 8 MiB). */
  readonly maxBufferedBytes?: number;
  /** The most bytes of one frame of events (default 1 MiB). */
  readonly maxFrameBytes?: number;
  /** Told the size of every chunk written (the daemon's metrics). */
  readonly countBytes?: (bytes: number) => void;
  /** Called once when the connection is over, with what ended it. */
  readonly onClose?: (reason: StreamEndReason) => void;
}

/**
 * What ended a stream connection: the client left (`client_closed`), the feed closed
 * (`feed_closed`), the client fell behind the replay window (`fell_behind`), its socket stayed
 * full too long (`drain_timeout`) or held too many unsent bytes (`buffer_limit`), or a write
 * failed (`write_failed`).
 */
export type StreamEndReason =
  | "client_closed"
  | "feed_closed"
  | "fell_behind"
  | "drain_timeout"
  | "buffer_limit"
  | "write_failed";

export const DEFAULT_KEEPALIVE_MS = 5_000;
const DEFAULT_DRAIN_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

const STREAM_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
  vary: "Accept",
  connection: "keep-alive",
} as const;

/**
 * The bytes of the last live frame written for a feed with several watchers. The watchers one
 * publish wakes all read on the same turn of the event loop, mostly from the same cursor to the
 * same one: the first encodes the frame to bytes, the others write those bytes (encoding a long
 * frame of merged text again for every watcher is the main per-watcher cost). Held until the
 * next turn only, so an idle feed keeps no frame.
 */
interface SharedFrame {
  readonly from: number;
  readonly to: number;
  readonly bytes: Buffer;
}

const sharedFrames = new WeakMap<SessionFeed, SharedFrame>();

const keepaliveBytes = Buffer.from(KEEPALIVE_FRAME, "latin1");

/**
 * A frame as the bytes written: encoded to UTF-8 once here, so neither the byte count nor the
 * chunked framing of the response (which needs the chunk's length) scans the text again.
 */
function frameBytes(frame: string): Buffer {
  return Buffer.from(frame, "utf8");
}

/** Serves a session stream on `res` until the client leaves, the feed closes, or the client falls behind. */
export function serveSessionStream(res: ServerResponse, options: SessionStreamOptions): void {
  new SessionStreamConnection(res, options).start();
}

/** The state of one connection: its cursor, its watcher and its timers. */
class SessionStreamConnection {
  private readonly feed: SessionFeed;
  private cursor: number;
  private readonly keepaliveMs: number;
  private readonly drainTimeoutMs: number;
  private readonly maxBufferedBytes: number;
  private readonly maxFrameBytes: number;
  private watcher: FeedWatcher | null = null;
  private readTask: NodeJS.Immediate | null = null;
  private drainTimer: NodeJS.Timeout | null = null;
  private keepaliveTimer: NodeJS.Timeout | null = null;
  private draining = false;
  private sentSinceTick = false;
  private finished = false;
  /** Why the connection is ending, once it is (a client that leaves sets nothing). */
  private ending: StreamEndReason | null = null;
  private socket: Socket | null = null;
  /**
   * The client half-closed its side (an SSE client sends nothing after its request, so it left):
   * the request is destroyed now, without an error. When the socket then closes, Node's abort of
   * the requests still in flight finds this one done; otherwise it builds a ConnResetException
   * for it and formats its stack (streams read `err.stack` on destroy), which costs an attach
   * about a twentieth of its instructions.
   */
  private readonly onClientLeft = (): void => {
    if (!this.finished) this.res.req.destroy();
  };

  constructor(
    private readonly res: ServerResponse,
    private readonly options: SessionStreamOptions,
  ) {
    this.feed = options.feed;
    this.cursor = options.first.cursor;
    this.keepaliveMs = options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  start(): void {
    const { res } = this;
    res.on("close", () => this.finish());
    res.on("error", () => this.destroy("write_failed"));
    res.on("drain", () => this.onDrain());
    const socket = res.socket;
    if (res.destroyed || res.writableEnded || socket === null || socket.destroyed) {
      // The client left before the stream started: nothing to serve, but the owner still
      // hears that this connection is over.
      this.finish();
      return;
    }
    this.socket = socket;
    socket.once("end", this.onClientLeft);
    try {
      socket.setNoDelay(true);
      res.writeHead(200, STREAM_HEADERS);
    } catch {
      this.destroy("write_failed");
      return;
    }
    const watcher = this.feed.watch(
      () => this.onWake(),
      () => this.end("feed_closed"),
    );
    this.watcher = watcher;
    const { first } = this.options;
    const events = this.frameOf(first.events, first.cursor);
    const written = this.write(
      frameBytes(encodeBatchFrame(this.feed.generation, this.cursor, events, first.reset)),
    );
    if (watcher.closed) {
      // The feed closed before this connection attached: the client gets its first batch, then the end.
      this.end("feed_closed");
      return;
    }
    // Acknowledging the first batch also catches events published between the caller's read
    // and watch(): the feed wakes us at once if it is already past the cursor.
    if (written) watcher.consumed(this.cursor);
    this.keepaliveTimer = setInterval(() => this.tick(), this.keepaliveMs);
    this.keepaliveTimer.unref();
  }

  private onWake(): void {
    // While the socket is full the wake is left outstanding; onDrain acknowledges the cursor,
    // and the feed wakes us again at once if it moved meanwhile.
    if (this.finished || this.draining || this.readTask !== null) return;
    // Read on a later turn of the event loop: everything published until then joins this frame.
    this.readTask = setImmediate(() => this.readAndSend());
  }

  private readAndSend(): void {
    this.readTask = null;
    const watcher = this.watcher;
    if (this.finished || this.draining || watcher === null || watcher.closed) return;
    const read = this.feed.read({ generation: this.feed.generation, sequence: this.cursor });
    if (read.kind === "reset") {
      // Fell behind the replay window: only a reconnect (reset + snapshot) can recover.
      this.end("fell_behind");
      return;
    }
    if (read.events.length === 0) {
      watcher.consumed(this.cursor);
      return;
    }
    const from = this.cursor;
    const events = this.frameOf(read.events, read.cursor);
    if (this.write(this.liveFrame(from, events))) {
      watcher.consumed(this.cursor);
    }
  }

  /** The frame of `events` (after `from`, through the cursor): shared bytes when other watchers may send the same. */
  private liveFrame(from: number, events: readonly EncodedEvent[]): Buffer {
    const { feed } = this;
    const to = this.cursor;
    if (feed.watcherCount < 2) return frameBytes(encodeBatchFrame(feed.generation, to, events));
    const shared = sharedFrames.get(feed);
    if (shared !== undefined && shared.from === from && shared.to === to) return shared.bytes;
    const frame: SharedFrame = {
      from,
      to,
      bytes: frameBytes(encodeBatchFrame(feed.generation, to, events)),
    };
    sharedFrames.set(feed, frame);
    setImmediate(() => {
      if (sharedFrames.get(feed) === frame) sharedFrames.delete(feed);
    });
    return frame.bytes;
  }

  /** The events of the next frame, the cursor moved to its last one (the rest follows on the next read). */
  private frameOf(events: readonly EncodedEvent[], cursor: number): readonly EncodedEvent[] {
    const count = eventsInFrame(events, this.maxFrameBytes);
    if (count === events.length) {
      this.cursor = cursor;
      return events;
    }
    this.cursor = events[count - 1]!.sequence;
    return events.slice(0, count);
  }

  private tick(): void {
    if (!this.sentSinceTick && !this.draining) this.write(keepaliveBytes);
    this.sentSinceTick = false;
  }

  /** Writes a chunk; false when it did not go out (buffer full, or the connection is over). */
  private write(chunk: Buffer): boolean {
    const { res } = this;
    if (this.finished || res.writableEnded || res.destroyed) return false;
    let flushed: boolean;
    try {
      flushed = res.write(chunk);
    } catch {
      this.destroy("write_failed");
      return false;
    }
    this.sentSinceTick = true;
    this.options.countBytes?.(chunk.length);
    if (res.writableLength > this.maxBufferedBytes) {
      this.destroy("buffer_limit");
      return false;
    }
    if (!flushed) this.awaitDrain();
    return flushed;
  }

  private awaitDrain(): void {
    if (this.draining) return;
    this.draining = true;
    this.drainTimer = setTimeout(() => this.destroy("drain_timeout"), this.drainTimeoutMs);
    this.drainTimer.unref();
  }

  private onDrain(): void {
    if (!this.draining) return;
    this.draining = false;
    if (this.drainTimer !== null) clearTimeout(this.drainTimer);
    this.drainTimer = null;
    if (this.finished || this.res.writableEnded) return;
    this.watcher?.consumed(this.cursor);
  }

  /** Ends the response after what is already written; the socket is still destroyed if it never drains. */
  private end(reason: StreamEndReason): void {
    if (this.finished || this.res.writableEnded) return;
    this.ending ??= reason;
    this.watcher?.close();
    try {
      this.res.end();
    } catch {
      this.destroy("write_failed");
    }
  }

  private destroy(reason: StreamEndReason): void {
    this.ending ??= reason;
    if (!this.res.destroyed) {
      try {
        this.res.destroy();
      } catch {
        // Already torn down; finish() below still releases everything.
      }
    }
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.readTask !== null) clearImmediate(this.readTask);
    if (this.drainTimer !== null) clearTimeout(this.drainTimer);
    if (this.keepaliveTimer !== null) clearInterval(this.keepaliveTimer);
    this.readTask = null;
    this.drainTimer = null;
    this.keepaliveTimer = null;
    // A connection kept alive after a stream the daemon ended may serve other requests.
    this.socket?.removeListener("end", this.onClientLeft);
    this.watcher?.close();
    try {
      this.options.onClose?.(this.ending ?? "client_closed");
    } catch {
      // The owner's bookkeeping failing must not surface as an uncaught error on a socket event.
    }
  }
}
