import { validate, version } from "uuid";
import { describe, expect, it } from "vitest";
import { timeOrderedId } from "../../src/model/time-ordered-id.js";

/** The millisecond a UUIDv7 carries in its first 48 bits. */
const msecsOf = (id: string): number => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);

describe("time-ordered ids", () => {
  it("are valid version 7 UUIDs whose time is the time they were made", () => {
    const before = Date.now();
    const id = timeOrderedId();
    const after = Date.now();
    expect(validate(id)).toBe(true);
    expect(version(id)).toBe(7);
    expect(msecsOf(id)).toBeGreaterThanOrEqual(before);
    expect(msecsOf(id)).toBeLessThanOrEqual(after);
  });

  it("each sort after the one before, also many within one millisecond and across pool refills", () => {
    // 5,000 ids use the 256-id random pool about 20 times over, most of them in a shared millisecond.
    const ids = Array.from({ length: 5_000 }, () => timeOrderedId());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const sameMillisecond = ids.filter((id, i) => i > 0 && msecsOf(id) === msecsOf(ids[i - 1]!)).length;
    expect(sameMillisecond).toBeGreaterThan(100);
  });

  it("never repeat their random part, so no random bytes are used twice", () => {
    // An id's last 5 bytes are random bytes alone (the counter and the variant sit before them).
    const tails = Array.from({ length: 2_000 }, () => timeOrderedId().replaceAll("-", "").slice(22));
    expect(new Set(tails).size).toBe(tails.length);
  });
});
