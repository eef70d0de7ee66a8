import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type EncodedEvent, encodeSessionEvent } from "../../../src/daemon/stream/encoded-event.js";
import { ReplayWindow } from "../../../src/daemon/stream/replay-window.js";

function event(sequence: number, text = "x"): EncodedEvent {
  return encodeSessionEvent("status", sequence, { text });
}

function fill(window: ReplayWindow, from: number, to: number, text = "x"): void {
  for (let sequence = from; sequence <= to; sequence += 1) window.push(event(sequence, text));
}

const sequences = (events: EncodedEvent[] | null) => events?.map((e) => e.sequence) ?? null;

describe("replay window", () => {
  it("returns the events after a cursor up to the current sequence, oldest first", () => {
    const window = new ReplayWindow();
    fill(window, 1, 5);
    expect(sequences(window.since(2, 5))).toEqual([3, 4, 5]);
    expect(sequences(window.since(0, 5))).toEqual([1, 2, 3, 4, 5]);
    expect(window.since(5, 5)).toEqual([]);
  });

  it("replays nothing from an empty window at sequence zero", () => {
    expect(new ReplayWindow().since(0, 0)).toEqual([]);
  });

  it("refuses a negative cursor, a cursor past the current sequence and a non-integer cursor", () => {
    const window = new ReplayWindow();
    fill(window, 1, 3);
    expect(window.since(-1, 3)).toBeNull();
    expect(window.since(4, 3)).toBeNull();
    expect(window.since(1.5, 3)).toBeNull();
  });

  it("keeps at most maxEvents events, dropping the oldest", () => {
    const window = new ReplayWindow({ maxEvents: 4 });
    fill(window, 1, 10);
    expect(window.size).toBe(4);
    expect(window.oldest).toBe(7);
    expect(sequences(window.since(6, 10))).toEqual([7, 8, 9, 10]);
    expect(window.since(5, 10)).toBeNull();
  });

  it("keeps at most maxBytes bytes, dropping the oldest", () => {
    const size = event(1, "a".repeat(100)).bytes;
    const window = new ReplayWindow({ maxEvents: 1000, maxBytes: size * 3 + 10 });
    fill(window, 1, 9, "a".repeat(100));
    expect(window.size).toBe(3);
    expect(window.bytes).toBe(size * 3);
    expect(sequences(window.since(6, 9))).toEqual([7, 8, 9]);
    expect(window.since(5, 9)).toBeNull();
  });

  it("counts bytes as UTF-8, not as UTF-16 code units", () => {
    const encoded = event(1, "é€😀");
    expect(encoded.bytes).toBe(Buffer.byteLength(encoded.json, "utf8"));
    expect(encoded.bytes).toBeGreaterThan(encoded.json.length);
  });

  it("empties itself for a single event larger than the byte limit, so even a cursor one behind resets", () => {
    const window = new ReplayWindow({ maxBytes: 200 });
    fill(window, 1, 3);
    window.push(event(4, "b".repeat(500)));
    expect(window.size).toBe(0);
    expect(window.since(3, 4)).toBeNull();
    expect(window.since(4, 4)).toEqual([]);
    window.push(event(5));
    expect(sequences(window.since(4, 5))).toEqual([5]);
  });

  it("rejects an event whose sequence does not follow the newest one", () => {
    const window = new ReplayWindow();
    window.push(event(1));
    expect(() => window.push(event(3))).toThrow(RangeError);
  });

  it("answers exactly the events after any cursor that the limits allow it to hold", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 80 }),
        // Up to 40 so the ring grows (from 8 slots) several times, also while wrapped.
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 40, max: 400 }),
        (sizes, maxEvents, maxBytes) => {
          const window = new ReplayWindow({ maxEvents, maxBytes });
          const published = sizes.map((size, index) => event(index + 1, "z".repeat(size)));
          for (const encoded of published) window.push(encoded);
          const current = published.length;
          for (let after = -1; after <= current + 1; after += 1) {
            const answer = window.since(after, current);
            const wanted = after < 0 || after > current ? null : published.slice(after);
            // The window must hold a suffix that fits both limits; the oldest event it drops
            // must be one that could not fit.
            const fits =
              wanted !== null &&
              wanted.length <= maxEvents &&
              wanted.every((e) => e.bytes <= maxBytes) &&
              wanted.reduce((sum, e) => sum + e.bytes, 0) <= maxBytes;
            if (answer === null) expect(fits).toBe(false);
            else {
              expect(wanted).not.toBeNull();
              expect(answer.map((e) => e.json)).toEqual(wanted!.map((e) => e.json));
            }
            if (fits) expect(answer).not.toBeNull();
          }
        },
      ),
    );
  });
});
