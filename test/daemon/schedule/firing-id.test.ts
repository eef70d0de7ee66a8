import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firingId } from "../../../src/daemon/schedule/firing-id.js";

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const scheduleIds = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$/);
const times = fc.integer({ min: 0, max: 2 ** 48 - 1 });

describe("a firing's derived id", () => {
  it("is a lowercase UUIDv7 whose timestamp is the firing time", () => {
    fc.assert(
      fc.property(
        scheduleIds,
        times,
        fc.constantFrom("input" as const, "session" as const),
        (id, at, purpose) => {
          const derived = firingId(purpose, id, at);
          expect(derived).toMatch(uuidV7);
          expect(Number.parseInt(derived.slice(0, 8) + derived.slice(9, 13), 16)).toBe(at);
        },
      ),
    );
  });

  it("is the same for the same schedule and time, and differs by schedule, time and purpose", () => {
    fc.assert(
      fc.property(scheduleIds, scheduleIds, times, times, (a, b, t, u) => {
        expect(firingId("input", a, t)).toBe(firingId("input", a, t));
        if (a !== b) expect(firingId("input", a, t)).not.toBe(firingId("input", b, t));
        if (t !== u) expect(firingId("input", a, t)).not.toBe(firingId("input", a, u));
        expect(firingId("input", a, t)).not.toBe(firingId("session", a, t));
      }),
    );
  });

  it("follows the documented derivation byte for byte", () => {
    const at = Date.UTC(2026, 0, 2, 7, 0, 0);
    const digest = createHash("sha256").update(`skein-schedule:input:morning:${at}`).digest();
    const hex = (bytes: number[]) => bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("");
    const time = at.toString(16).padStart(12, "0");
    const randA = hex([0x70 | (digest[0]! & 0x0f), digest[1]!]);
    const randB = hex([0x80 | (digest[2]! & 0x3f), ...digest.subarray(3, 10)]);
    const expected = `${time.slice(0, 8)}-${time.slice(8)}-${randA}-${randB.slice(0, 4)}-${randB.slice(4)}`;
    expect(firingId("input", "morning", at)).toBe(expected);
  });

  it("gives the example id docs/http-api.md shows", () => {
    expect(firingId("input", "morning", Date.UTC(2026, 0, 2, 7))).toBe(
      "019b7d81-8980-725f-a9d5-a03be7670ded",
    );
  });

  it("refuses a time that does not fit 48 bits", () => {
    expect(() => firingId("input", "x", -1)).toThrow(RangeError);
    expect(() => firingId("input", "x", 2 ** 48)).toThrow(RangeError);
  });
});
