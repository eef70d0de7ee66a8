import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EncodedEvent } from "../../../src/daemon/stream/encoded-event.js";
import { type FeedRead, newGeneration, SessionFeed } from "../../../src/daemon/stream/session-feed.js";

interface ParsedEvent {
  type: string;
  sequence: number;
  data: { run_id?: string; message_id?: string; text?: string; n?: number };
}

const parse = (events: readonly EncodedEvent[]) => events.map((e) => JSON.parse(e.json) as ParsedEvent);

function eventsOf(read: FeedRead): EncodedEvent[] {
  if (read.kind !== "events") throw new Error(`expected events, got a ${read.reason} reset`);
  return read.events;
}

/** Every event the feed still holds, parsed. */
function held(feed: SessionFeed): ParsedEvent[] {
  return parse(eventsOf(feed.read({ generation: feed.generation, sequence: feed.oldestReplayable - 1 })));
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !predicate(); waited += 5) {
    if (waited > 5_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe("session feed", () => {
  it("makes a fresh 22-character base64url generation for every feed", () => {
    const a = new SessionFeed();
    const b = new SessionFeed();
    expect(a.generation).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(newGeneration()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.generation).not.toBe(b.generation);
  });

  it("numbers events contiguously from one, starting at sequence zero", () => {
    const feed = new SessionFeed();
    expect(feed.sequence).toBe(0);
    for (let n = 0; n < 10; n += 1) feed.publish("status", { n });
    expect(feed.sequence).toBe(10);
    const events = parse(eventsOf(feed.read({ generation: feed.generation, sequence: 0 })));
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(events[3]).toEqual({ type: "status", sequence: 4, data: { n: 3 } });
  });

  it("replays exactly the later events, in order, to a cursor in the same generation", () => {
    const feed = new SessionFeed();
    for (let n = 0; n < 5; n += 1) feed.publish("status", { n });
    const read = feed.read({ generation: feed.generation, sequence: 2 });
    expect(read.kind).toBe("events");
    expect(read.cursor).toBe(5);
    expect(parse(eventsOf(read)).map((e) => e.data.n)).toEqual([2, 3, 4]);
    expect(feed.read({ generation: feed.generation, sequence: 5 })).toEqual({
      kind: "events",
      cursor: 5,
      events: [],
    });
  });

  it("answers an initial reset when no cursor is given", () => {
    const feed = new SessionFeed();
    feed.publish("status", {});
    expect(feed.read(null)).toEqual({ kind: "reset", cursor: 1, reason: "initial" });
  });

  it("answers generation_changed for a cursor from another generation", () => {
    const feed = new SessionFeed();
    feed.publish("status", {});
    const other = new SessionFeed().generation;
    expect(feed.read({ generation: other, sequence: 0 })).toEqual({
      kind: "reset",
      cursor: 1,
      reason: "generation_changed",
    });
  });

  it("answers replay_unavailable for an evicted cursor, a cursor past the current sequence and a negative one", () => {
    const feed = new SessionFeed({ windowMaxEvents: 4 });
    for (let n = 0; n < 10; n += 1) feed.publish("status", { n });
    const { generation } = feed;
    for (const sequence of [5, 11, -1]) {
      expect(feed.read({ generation, sequence })).toEqual({
        kind: "reset",
        cursor: 10,
        reason: "replay_unavailable",
      });
    }
    expect(feed.read({ generation, sequence: 6 }).kind).toBe("events");
  });

  it("lets any sequence of publishes be rebuilt exactly from one cursor and the reads after it", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant("publish" as const), size: fc.integer({ min: 0, max: 50 }) }),
            fc.record({ op: fc.constant("read" as const) }),
          ),
          { maxLength: 120 },
        ),
        fc.integer({ min: 0, max: 40 }),
        (ops, start) => {
          // Window big enough for the reads below: never more than 8 publishes between two reads.
          const feed = new SessionFeed({ windowMaxEvents: 8, windowMaxBytes: 8 * 200 });
          const published: string[] = [];
          const publish = (size: number) => {
            const text = `${published.length}:${"p".repeat(size)}`;
            published.push(text);
            feed.publish("status", { text });
          };
          for (let n = 0; n < start; n += 1) publish(0);
          // Any valid cursor the window still holds: here the current one and up to 7 back.
          const cursor = Math.max(0, feed.sequence - (start % 8));
          const seen: string[] = published.slice(0, cursor);
          let after = cursor;
          let sinceRead = 0;
          const read = () => {
            const answer = feed.read({ generation: feed.generation, sequence: after });
            for (const event of parse(eventsOf(answer))) {
              expect(event.sequence).toBe(after + 1);
              seen.push(String(event.data.text));
              after = event.sequence;
            }
            expect(answer.cursor).toBe(after);
            sinceRead = 0;
          };
          read();
          for (const step of ops) {
            if (step.op === "publish") {
              if (sinceRead === 8) read();
              publish(step.size);
              sinceRead += 1;
            } else read();
          }
          read();
          expect(seen).toEqual(published);
        },
      ),
    );
  });

  describe("watchers", () => {
    it("wakes a watcher once however many events are published before it consumes", () => {
      const feed = new SessionFeed();
      let wakes = 0;
      feed.watch(() => {
        wakes += 1;
      });
      for (let n = 0; n < 100; n += 1) feed.publish("status", { n });
      expect(wakes).toBe(1);
    });

    it("re-arms a watcher that consumed the current cursor, and re-wakes at once one that is behind", () => {
      const feed = new SessionFeed();
      let wakes = 0;
      const watcher = feed.watch(() => {
        wakes += 1;
      });
      feed.publish("status", {});
      feed.publish("status", {});
      watcher.consumed(1);
      expect(wakes).toBe(2);
      watcher.consumed(2);
      expect(wakes).toBe(2);
      feed.publish("status", {});
      expect(wakes).toBe(3);
    });

    it("wakes a new watcher at once when it acknowledges a cursor the feed has already passed", () => {
      const feed = new SessionFeed();
      feed.publish("status", {});
      let wakes = 0;
      const watcher = feed.watch(() => {
        wakes += 1;
      });
      watcher.consumed(0);
      expect(wakes).toBe(1);
    });

    it("keeps waking the other watchers when one never consumes", () => {
      const feed = new SessionFeed();
      let stuck = 0;
      let live = 0;
      feed.watch(() => {
        stuck += 1;
      });
      const watcher = feed.watch(() => {
        live += 1;
        watcher.consumed(feed.sequence);
      });
      for (let n = 0; n < 50; n += 1) feed.publish("status", { n });
      expect(stuck).toBe(1);
      expect(live).toBe(50);
    });

    it("stops waking a watcher that closed itself, without calling its close callback", () => {
      const feed = new SessionFeed();
      let wakes = 0;
      let closes = 0;
      const watcher = feed.watch(
        () => {
          wakes += 1;
        },
        () => {
          closes += 1;
        },
      );
      watcher.close();
      feed.publish("status", {});
      expect(wakes).toBe(0);
      expect(closes).toBe(0);
      expect(feed.watcherCount).toBe(0);
    });

    it("detaches a watcher whose wake throws and keeps publishing to the others", () => {
      const feed = new SessionFeed();
      const broken = feed.watch(() => {
        throw new Error("broken client");
      });
      let wakes = 0;
      feed.watch(() => {
        wakes += 1;
      });
      feed.publish("status", {});
      expect(broken.closed).toBe(true);
      expect(wakes).toBe(1);
      expect(feed.sequence).toBe(1);
    });

    it("ends every watcher when the feed closes, and attaches none afterwards", () => {
      const feed = new SessionFeed();
      const closed: string[] = [];
      const a = feed.watch(
        () => {},
        () => closed.push("a"),
      );
      feed.watch(
        () => {},
        () => closed.push("b"),
      );
      feed.close();
      expect(closed).toEqual(["a", "b"]);
      expect(a.closed).toBe(true);
      expect(feed.watcherCount).toBe(0);
      const late = feed.watch(
        () => closed.push("late wake"),
        () => closed.push("late close"),
      );
      expect(late.closed).toBe(true);
      feed.publish("status", {});
      expect(closed).toEqual(["a", "b"]);
    });
  });

  describe("delta merging", () => {
    it("publishes the first delta after a quiet moment at once", () => {
      const feed = new SessionFeed({ frameMs: 1_000 });
      feed.publishDelta("text", "r1", "m1", "Hel");
      expect(feed.sequence).toBe(1);
      expect(held(feed)).toEqual([
        { type: "text", sequence: 1, data: { run_id: "r1", message_id: "m1", text: "Hel" } },
      ]);
    });

    it("merges the deltas of one open frame into one event published when the frame closes", async () => {
      const feed = new SessionFeed({ frameMs: 20 });
      feed.publishDelta("text", "r1", "m1", "a");
      feed.publishDelta("text", "r1", "m1", "b");
      feed.publishDelta("text", "r1", "m1", "c");
      expect(feed.sequence).toBe(1);
      await until(() => feed.sequence === 2, "the frame to close");
      expect(held(feed).map((e) => [e.type, e.data.text])).toEqual([
        ["text", "a"],
        ["text", "bc"],
      ]);
    });

    it("publishes at once again after a frame in which nothing arrived", async () => {
      const feed = new SessionFeed({ frameMs: 10 });
      feed.publishDelta("text", "r1", "m1", "a");
      feed.publishDelta("text", "r1", "m1", "b");
      await until(() => feed.sequence === 2, "the merged delta");
      await sleep(60);
      feed.publishDelta("text", "r1", "m1", "c");
      expect(feed.sequence).toBe(3);
    });

    it("starts a new event when the type changes from text to thinking", () => {
      const feed = new SessionFeed({ frameMs: 1_000 });
      feed.publishDelta("text", "r1", "m1", "a");
      feed.publishDelta("text", "r1", "m1", "b");
      feed.publishDelta("thinking", "r1", "m1", "c");
      feed.publishDelta("thinking", "r1", "m1", "d");
      feed.flushDeltas();
      expect(held(feed).map((e) => [e.type, e.data.text])).toEqual([
        ["text", "a"],
        ["text", "b"],
        ["thinking", "cd"],
      ]);
    });

    it("starts a new event when the message changes", () => {
      const feed = new SessionFeed({ frameMs: 1_000 });
      feed.publishDelta("text", "r1", "m1", "a");
      feed.publishDelta("text", "r1", "m1", "b");
      feed.publishDelta("text", "r1", "m2", "c");
      feed.flushDeltas();
      expect(held(feed).map((e) => [e.data.message_id, e.data.text])).toEqual([
        ["m1", "a"],
        ["m1", "b"],
        ["m2", "c"],
      ]);
    });

    it("publishes waiting deltas before any other event, so order is preserved", () => {
      const feed = new SessionFeed({ frameMs: 1_000 });
      feed.publishDelta("text", "r1", "m1", "a");
      feed.publishDelta("text", "r1", "m1", "b");
      feed.publish("message", { entry: "committed" });
      expect(held(feed).map((e) => e.type)).toEqual(["text", "text", "message"]);
    });

    it("ignores empty deltas", () => {
      const feed = new SessionFeed({ frameMs: 1_000 });
      feed.publishDelta("text", "r1", "m1", "");
      expect(feed.sequence).toBe(0);
    });

    it("turns a burst of deltas into two events whose text is the whole burst", async () => {
      const feed = new SessionFeed({ frameMs: 10 });
      let expected = "";
      for (let n = 0; n < 1_000; n += 1) {
        const delta = `w${n} `;
        expected += delta;
        feed.publishDelta("text", "r1", "m1", delta);
      }
      await until(() => feed.sequence === 2, "the merged burst");
      expect(
        held(feed)
          .map((e) => e.data.text)
          .join(""),
      ).toBe(expected);
    });

    it("splits a delta longer than the event bound into events of the same message, never inside a surrogate pair", () => {
      const feed = new SessionFeed({ frameMs: 1_000, deltaMaxUnits: 4 });
      feed.publishDelta("text", "r1", "m1", "abc😀defghij");
      expect(held(feed).map((e) => [e.data.message_id, e.data.text])).toEqual([
        ["m1", "abc"],
        ["m1", "😀de"],
        ["m1", "fghi"],
        ["m1", "j"],
      ]);
    });

    it("splits merged deltas too, by default at 65536 code units, keeping all the text in order", async () => {
      const feed = new SessionFeed({ frameMs: 10 });
      let expected = "";
      for (let n = 0; n < 40; n += 1) {
        const delta = `${n}`.padEnd(10_000, "é");
        expected += delta;
        feed.publishDelta("thinking", "r1", "m1", delta);
      }
      // The first delta goes out at once; the other 390,000 units are merged, then split in six.
      await until(() => feed.sequence === 7, "the merged deltas");
      const texts = held(feed).map((e) => e.data.text ?? "");
      expect(texts.join("")).toBe(expected);
      expect(Math.max(...texts.map((text) => text.length))).toBe(65_536);
    });

    it("publishes waiting deltas when the feed closes", () => {
      const feed = new SessionFeed({ frameMs: 1_000 });
      feed.publishDelta("thinking", "r1", "m1", "a");
      feed.publishDelta("thinking", "r1", "m1", "b");
      feed.close();
      expect(held(feed).map((e) => e.data.text)).toEqual(["a", "b"]);
    });
  });
});
