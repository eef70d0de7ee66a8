import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { parseStreamCursor } from "../../../src/daemon/stream/cursor.js";
import { SessionFeed } from "../../../src/daemon/stream/session-feed.js";
import {
  type FirstBatch,
  type SessionStreamOptions,
  type StreamEndReason,
  serveSessionStream,
} from "../../../src/daemon/stream/sse-stream.js";
import {
  connectNonReadingClient,
  SseTestClient,
  startServer,
  type TestServer,
  type WireEvent,
} from "./sse-test-client.js";

const SNAPSHOT = { id: "session-1", history: { items: [], older: null } };

type StreamOverrides = Partial<Omit<SessionStreamOptions, "feed" | "first" | "onClose">> & {
  first?: FirstBatch;
};

/** One served connection, as the server saw it. */
interface Served {
  path: string;
  res: ServerResponse;
  ended: StreamEndReason | null;
}

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A server that answers every request with the feed's stream, the way the daemon's route will:
 * parse the cursor, read the feed, then serve (a reset carries a snapshot).
 */
async function streamServer(
  feed: SessionFeed,
  overrides: (path: string) => StreamOverrides = () => ({}),
): Promise<{ server: TestServer; served: Served[] }> {
  const served: Served[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const cursor = parseStreamCursor(
      {
        after_generation: url.searchParams.get("after_generation") ?? undefined,
        after_seq: url.searchParams.get("after_seq") ?? undefined,
      },
      req.headers["last-event-id"],
    );
    const read = feed.read(cursor);
    const first: FirstBatch =
      read.kind === "reset"
        ? { cursor: read.cursor, events: [], reset: { reason: read.reason, snapshot: SNAPSHOT } }
        : { cursor: read.cursor, events: read.events };
    const entry: Served = { path: url.pathname, res, ended: null };
    served.push(entry);
    const { first: firstOverride, ...rest } = overrides(url.pathname);
    serveSessionStream(res, {
      feed,
      first: firstOverride ?? first,
      ...rest,
      onClose: (reason) => {
        entry.ended = reason;
      },
    });
  };
  const server = await startServer(handler);
  cleanups.push(() => server.close());
  return { server, served };
}

async function connect(
  port: number,
  path = "/stream",
  headers: Record<string, string> = {},
): Promise<SseTestClient> {
  const client = await SseTestClient.connect(port, path, headers);
  cleanups.push(() => client.close());
  return client;
}

async function nonReading(port: number, path: string): Promise<Socket> {
  const socket = await connectNonReadingClient(port, path);
  cleanups.push(() => {
    socket.destroy();
  });
  return socket;
}

async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

const lastSequence = (client: SseTestClient) => client.events.at(-1)?.sequence ?? 0;

function expectContiguous(events: WireEvent[], from: number, to: number): void {
  expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: to - from + 1 }, (_, i) => from + i));
}

describe("session SSE stream", () => {
  it("answers with the stream headers and sends the first batch at once, with a reset and a snapshot", async () => {
    const feed = new SessionFeed();
    feed.publish("status", { phase: "idle" });
    const { server } = await streamServer(feed);
    const client = await connect(server.port);
    expect(client.response.statusCode).toBe(200);
    expect(client.response.headers["content-type"]).toBe("text/event-stream");
    expect(client.response.headers["cache-control"]).toBe("no-store");
    expect(client.response.headers["x-accel-buffering"]).toBe("no");
    expect(client.response.headers.vary).toBe("Accept");
    await client.waitFor(() => client.frames.length === 1, "the first batch");
    const [frame] = client.frames;
    expect(frame!.id).toBe(`${feed.generation}.1`);
    expect(frame!.batch).toEqual({
      generation: feed.generation,
      cursor: 1,
      events: [{ type: "reset", data: { reason: "initial" } }],
      snapshot: SNAPSHOT,
    });
  });

  it("replays exactly the later events in the first batch to a cursor in the same generation", async () => {
    const feed = new SessionFeed();
    for (let n = 0; n < 5; n += 1) feed.publish("status", { n });
    const { server } = await streamServer(feed);
    const client = await connect(server.port, `/stream?after_generation=${feed.generation}&after_seq=2`);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    const [batch] = client.batches;
    expect(batch!.snapshot).toBeUndefined();
    expect(batch!.cursor).toBe(5);
    expectContiguous(batch!.events, 3, 5);
    expect(batch!.events.map((e) => e.data.n)).toEqual([2, 3, 4]);
  });

  it("sends a caught-up client an empty first batch with the same generation and cursor", async () => {
    const feed = new SessionFeed();
    feed.publish("status", {});
    const { server } = await streamServer(feed);
    const client = await connect(server.port, `/stream?after_generation=${feed.generation}&after_seq=1`);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    expect(client.frames[0]).toEqual({
      id: `${feed.generation}.1`,
      comment: null,
      batch: { generation: feed.generation, cursor: 1, events: [] },
    });
  });

  it("resets with generation_changed or replay_unavailable when it cannot replay", async () => {
    const feed = new SessionFeed({ windowMaxEvents: 2 });
    for (let n = 0; n < 5; n += 1) feed.publish("status", { n });
    const { server } = await streamServer(feed);
    const other = await connect(
      server.port,
      `/stream?after_generation=${new SessionFeed().generation}&after_seq=5`,
    );
    const evicted = await connect(server.port, `/stream?after_generation=${feed.generation}&after_seq=1`);
    for (const [client, reason] of [
      [other, "generation_changed"],
      [evicted, "replay_unavailable"],
    ] as const) {
      await client.waitFor(() => client.batches.length === 1, "the first batch");
      expect(client.batches[0]!.events).toEqual([{ type: "reset", data: { reason } }]);
      expect(client.batches[0]!.generation).toBe(feed.generation);
      expect(client.batches[0]!.cursor).toBe(5);
      expect(client.batches[0]!.snapshot).toEqual(SNAPSHOT);
    }
  });

  it("delivers later events as frames with contiguous sequences, a batch cursor at the last one and a matching id", async () => {
    const feed = new SessionFeed();
    const { server } = await streamServer(feed);
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    for (let n = 0; n < 60; n += 1) {
      feed.publish("status", { n });
      if (n % 7 === 0) await nextTurn();
    }
    await client.waitFor(() => lastSequence(client) === 60, "sequence 60");
    expectContiguous(client.events, 1, 60);
    for (const frame of client.frames.slice(1)) {
      expect(frame.batch!.cursor).toBe(frame.batch!.events.at(-1)!.sequence);
      expect(frame.id).toBe(`${feed.generation}.${frame.batch!.cursor}`);
    }
  });

  it("sends a read larger than the frame bound as several frames, each within it, contiguous and in order", async () => {
    const feed = new SessionFeed();
    const { server } = await streamServer(feed, () => ({ maxFrameBytes: 2_000 }));
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    for (let n = 1; n <= 30; n += 1) feed.publish("status", { n, pad: "p".repeat(300) });
    await client.waitFor(() => lastSequence(client) === 30, "sequence 30");
    expectContiguous(client.events, 1, 30);
    const later = client.frames.slice(1);
    expect(later.length).toBeGreaterThanOrEqual(6);
    expect(Math.max(...client.frameBytes)).toBeLessThanOrEqual(2_000);
    for (const frame of later) {
      expect(frame.batch!.cursor).toBe(frame.batch!.events.at(-1)!.sequence);
      expect(frame.id).toBe(`${feed.generation}.${frame.batch!.cursor}`);
    }
  });

  it("splits a first batch that replays more than the frame bound, and sends an event over the bound alone", async () => {
    const feed = new SessionFeed();
    for (let n = 1; n <= 12; n += 1) feed.publish("status", { n, pad: "p".repeat(n === 6 ? 5_000 : 300) });
    const { server } = await streamServer(feed, () => ({ maxFrameBytes: 2_000 }));
    const client = await connect(server.port, `/stream?after_generation=${feed.generation}&after_seq=0`);
    await client.waitFor(() => lastSequence(client) === 12, "sequence 12");
    expectContiguous(client.events, 1, 12);
    expect(client.batches[0]!.cursor).toBeLessThan(6);
    const alone = client.batches.find((batch) => batch.events.some((event) => event.sequence === 6));
    expect(alone!.events.map((event) => event.sequence)).toEqual([6]);
  });

  it("resumes from Last-Event-ID with only the events after it", async () => {
    const feed = new SessionFeed();
    const { server } = await streamServer(feed);
    const first = await connect(server.port);
    await first.waitFor(() => first.batches.length === 1, "the first batch");
    feed.publish("status", { n: 1 });
    feed.publish("status", { n: 2 });
    await first.waitFor(() => lastSequence(first) === 2, "sequence 2");
    const lastId = first.frames.at(-1)!.id!;
    first.close();
    feed.publish("status", { n: 3 });
    const resumed = await connect(server.port, "/stream", { "last-event-id": lastId });
    await resumed.waitFor(() => resumed.batches.length === 1, "the first batch");
    expect(resumed.batches[0]!.events.map((e) => e.data.n)).toEqual([3]);
    expect(resumed.frames[0]!.id).toBe(`${feed.generation}.3`);
  });

  it("delivers a burst of a thousand deltas as a few frames whose text is the whole burst", async () => {
    const feed = new SessionFeed();
    const { server } = await streamServer(feed);
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    let expected = "";
    for (let n = 0; n < 1_000; n += 1) {
      const delta = `tok${n} `;
      expected += delta;
      feed.publishDelta("text", "run-1", "msg-1", delta);
      if (n % 100 === 99) await nextTurn();
    }
    feed.publish("turn_completed", { run_id: "run-1", state: "completed", input_ids: [] });
    await client.waitFor(() => client.events.some((e) => e.type === "turn_completed"), "turn_completed");
    const text = client.events.filter((e) => e.type === "text").map((e) => e.data.text);
    expect(text.join("")).toBe(expected);
    expect(client.batches.length - 1).toBeLessThanOrEqual(12);
    expectContiguous(client.events, 1, feed.sequence);
  });

  it("sends everything published before it reads as one frame: one wake outstanding per watcher", async () => {
    const feed = new SessionFeed();
    const { server } = await streamServer(feed);
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    for (let n = 0; n < 200; n += 1) feed.publish("status", { n });
    await client.waitFor(() => lastSequence(client) === 200, "sequence 200");
    expect(client.batches.length).toBe(2);
    expectContiguous(client.batches[1]!.events, 1, 200);
  });

  it("sends watchers at the same cursor the same frames, and one at another cursor its own", async () => {
    const feed = new SessionFeed();
    const { server } = await streamServer(feed);
    const first = await connect(server.port);
    const second = await connect(server.port);
    await first.waitFor(() => first.batches.length === 1, "the first batch");
    await second.waitFor(() => second.batches.length === 1, "the first batch");
    for (let n = 1; n <= 5; n += 1) feed.publish("status", { n });
    await first.waitFor(() => lastSequence(first) === 5, "sequence 5");
    await second.waitFor(() => lastSequence(second) === 5, "sequence 5");
    // Behind the others by a replay: its frames cover other ranges until it catches up.
    const late = await connect(server.port, `/stream?after_generation=${feed.generation}&after_seq=2`);
    for (let round = 0; round < 5; round += 1) {
      for (let n = 0; n < 20; n += 1) feed.publishDelta("text", "run-1", "msg-1", `r${round}t${n} `);
      feed.publish("status", { round });
      await nextTurn();
    }
    feed.publish("turn_completed", { run_id: "run-1", state: "completed", input_ids: [] });
    const done = (client: SseTestClient) => client.events.some((e) => e.type === "turn_completed");
    for (const client of [first, second, late]) await client.waitFor(() => done(client), "turn_completed");
    expectContiguous(first.events, 1, feed.sequence);
    expectContiguous(second.events, 1, feed.sequence);
    expectContiguous(late.events, 3, feed.sequence);
    expect(second.frames.map((frame) => frame.id)).toEqual(first.frames.map((frame) => frame.id));
    expect(second.frameBytes).toEqual(first.frameBytes);
    for (const client of [first, second, late]) {
      for (const frame of client.frames.slice(1)) {
        expect(frame.id).toBe(`${feed.generation}.${frame.batch!.cursor}`);
        expect(frame.batch!.cursor).toBe(frame.batch!.events.at(-1)!.sequence);
      }
    }
  });

  it("counts exactly the bytes the client receives, multi-byte text and keepalives included", async () => {
    const feed = new SessionFeed();
    const counted: number[] = [];
    const { server } = await streamServer(feed, () => ({
      keepaliveMs: 30,
      countBytes: (bytes) => counted.push(bytes),
    }));
    const client = await connect(server.port);
    await client.waitFor(() => client.frames.length === 1, "the first batch");
    feed.publish("status", { text: "grüße, 世界 🧵" });
    await client.waitFor(() => lastSequence(client) === 1, "sequence 1");
    await client.waitFor(() => client.comments.length >= 2, "two keepalives");
    expect(client.events[0]!.data).toEqual({ text: "grüße, 世界 🧵" });
    expect(counted.slice(0, client.frameBytes.length)).toEqual(client.frameBytes);
  });

  it("writes a keepalive comment when nothing happens", async () => {
    const feed = new SessionFeed();
    const { server } = await streamServer(feed, () => ({ keepaliveMs: 30 }));
    const client = await connect(server.port);
    await client.waitFor(() => client.comments.length >= 2, "two keepalives");
    expect(client.comments[0]).toBe("keepalive");
    expect(client.batches.length).toBe(1);
  });

  it("ends the response when the feed closes", async () => {
    const feed = new SessionFeed();
    const { server, served } = await streamServer(feed);
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    feed.publish("status", { n: 1 });
    feed.close();
    await client.waitForEnd();
    expect(served[0]!.ended).toBe("feed_closed");
    expect(feed.watcherCount).toBe(0);
  });

  it("sends the first batch and then ends when the feed is already closed", async () => {
    const feed = new SessionFeed();
    feed.close();
    const { server, served } = await streamServer(feed);
    const client = await connect(server.port);
    await client.waitForEnd();
    expect(client.batches.length).toBe(1);
    await until(() => served[0]!.ended !== null, "the server side to finish");
    expect(served[0]!.ended).toBe("feed_closed");
  });

  it("stops watching the feed when the client disconnects", async () => {
    const feed = new SessionFeed();
    const { server, served } = await streamServer(feed);
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    expect(feed.watcherCount).toBe(1);
    client.close();
    await until(() => feed.watcherCount === 0, "the watcher to detach");
    expect(served[0]!.ended).toBe("client_closed");
    feed.publish("status", {});
  });

  it("leaves Node no connection-reset error to build a stack for when the client disconnects", async () => {
    const feed = new SessionFeed();
    const { server, served } = await streamServer(feed);
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    client.close();
    await until(() => served[0]?.ended !== null, "the stream to end");
    await until(
      () => served[0]!.res.socket === null || served[0]!.res.socket.destroyed,
      "the socket to close",
    );
    // Node aborts a request still in flight when its socket closes with an error whose stack
    // its streams format at once; a request already destroyed is left alone.
    expect(served[0]!.res.req.destroyed).toBe(true);
    expect(served[0]!.res.req.errored).toBeNull();
    expect(served[0]!.ended).toBe("client_closed");
  });

  it("does not throw when the client is gone before the stream starts", async () => {
    const feed = new SessionFeed();
    let outcome: string | null = null;
    const server = await startServer((req, res) => {
      req.socket.destroy();
      try {
        serveSessionStream(res, {
          feed,
          first: { cursor: 0, events: [] },
          onClose: (reason) => {
            outcome = reason;
          },
        });
      } catch (error) {
        outcome = `threw ${String(error)}`;
      }
    });
    cleanups.push(() => server.close());
    await SseTestClient.connect(server.port).then(
      (client) => client.close(),
      () => {},
    );
    await until(() => outcome !== null, "the handler to run");
    expect(outcome).toBe("client_closed");
    expect(feed.watcherCount).toBe(0);
  });

  it("ends the stream of a client that fell behind the replay window, and its reconnect gets replay_unavailable", async () => {
    const feed = new SessionFeed({ windowMaxEvents: 4 });
    const { server, served } = await streamServer(feed);
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the first batch");
    // Published before the connection's next read: more than the window holds.
    for (let n = 0; n < 10; n += 1) feed.publish("status", { n });
    await client.waitForEnd();
    expect(served[0]!.ended).toBe("fell_behind");
    const lastId = client.frames.at(-1)!.id!;
    const again = await connect(server.port, "/stream", { "last-event-id": lastId });
    await again.waitFor(() => again.batches.length === 1, "the first batch");
    expect(again.batches[0]!.events).toEqual([{ type: "reset", data: { reason: "replay_unavailable" } }]);
    expect(again.batches[0]!.cursor).toBe(10);
  });

  it("keeps a reading client through a frame larger than the socket buffer and delivers what follows", async () => {
    const feed = new SessionFeed();
    const big = { text: "s".repeat(4 * 1024 * 1024) };
    const { server } = await streamServer(feed, () => ({
      first: { cursor: 0, events: [], reset: { reason: "initial", snapshot: big } },
    }));
    const client = await connect(server.port);
    await client.waitFor(() => client.batches.length === 1, "the big first batch");
    feed.publish("status", { n: 1 });
    await client.waitFor(() => lastSequence(client) === 1, "the event after it");
  });

  describe("a client that does not read", () => {
    it("is cut off without the server buffering more than a frame, while another watcher receives everything", async () => {
      const windowMaxBytes = 2 * 1024 * 1024;
      const feed = new SessionFeed({ windowMaxEvents: 64, windowMaxBytes });
      const { server, served } = await streamServer(feed, (path) =>
        path === "/slow" ? { drainTimeoutMs: 1_500 } : {},
      );
      const good = await connect(server.port, "/good");
      await good.waitFor(() => good.batches.length === 1, "the first batch");
      await nonReading(server.port, "/slow");
      await until(() => feed.watcherCount === 2, "the slow watcher");
      const slow = served.find((s) => s.path === "/slow")!;
      const payload = "x".repeat(32 * 1024);
      let published = 0;
      let maxBuffered = 0;
      while (slow.ended === null && published < 5_000) {
        published += 1;
        feed.publish("status", { n: published, payload });
        await good.waitFor(() => lastSequence(good) === published, `sequence ${published}`);
        maxBuffered = Math.max(maxBuffered, slow.res.writableLength);
        if (slow.res.writableNeedDrain) await sleep(5);
      }
      expect(["drain_timeout", "fell_behind"]).toContain(slow.ended);
      const publishedBytes = published * payload.length;
      const bound = windowMaxBytes + 64 * 1024;
      expect(publishedBytes).toBeGreaterThan(2 * bound);
      expect(maxBuffered).toBeLessThanOrEqual(bound);
      for (let n = 0; n < 5; n += 1) feed.publish("status", { n: published + n + 1 });
      await good.waitFor(() => lastSequence(good) === published + 5, "the events after the cut-off");
      expectContiguous(good.events, 1, published + 5);
      expect(feed.watcherCount).toBe(1);
    });

    it("is destroyed when its socket does not drain in time", async () => {
      const feed = new SessionFeed();
      const snapshot = { text: "d".repeat(16 * 1024 * 1024) };
      const { server, served } = await streamServer(feed, () => ({
        drainTimeoutMs: 200,
        maxBufferedBytes: 64 * 1024 * 1024,
        first: { cursor: 0, events: [], reset: { reason: "initial", snapshot } },
      }));
      await nonReading(server.port, "/slow");
      await until(() => served[0]?.ended != null, "the connection to be cut off");
      expect(served[0]!.ended).toBe("drain_timeout");
      expect(served[0]!.res.destroyed).toBe(true);
      expect(feed.watcherCount).toBe(0);
    });

    it("is destroyed at once when its unsent bytes pass the limit", async () => {
      const feed = new SessionFeed();
      const snapshot = { text: "b".repeat(16 * 1024 * 1024) };
      const { server, served } = await streamServer(feed, () => ({
        drainTimeoutMs: 60_000,
        maxBufferedBytes: 1024 * 1024,
        first: { cursor: 0, events: [], reset: { reason: "initial", snapshot } },
      }));
      await nonReading(server.port, "/slow");
      await until(() => served[0]?.ended != null, "the connection to be cut off", 5_000);
      expect(served[0]!.ended).toBe("buffer_limit");
      expect(served[0]!.res.destroyed).toBe(true);
      expect(feed.watcherCount).toBe(0);
    });
  });
});
