import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  firstFiring,
  missedAfterMs,
  nextFiringAfter,
  stepAt,
  timingProblem,
} from "../../../src/daemon/schedule/schedule-timing.js";

const everySecond = { kind: "cron", cron: "* * * * * *", timezone: null } as const;
const sevenInBerlin = { kind: "cron", cron: "0 7 * * *", timezone: "Europe/Berlin" } as const;
const start = Date.UTC(2026, 0, 1);

describe("schedule timing", () => {
  it("finds a cron expression's next firing strictly after a time, in its time zone", () => {
    expect(nextFiringAfter(everySecond, 1_000)).toBe(2_000);
    expect(nextFiringAfter(everySecond, 1_500)).toBe(2_000);
    // 07:00 in Berlin is 06:00 UTC in winter and 05:00 UTC in summer.
    expect(nextFiringAfter(sevenInBerlin, Date.UTC(2026, 0, 1, 12))).toBe(Date.UTC(2026, 0, 2, 6));
    expect(nextFiringAfter(sevenInBerlin, Date.UTC(2026, 6, 1, 12))).toBe(Date.UTC(2026, 6, 2, 5));
  });

  it("fires a one-shot time once: its first firing is the time, nothing after it", () => {
    const at = { kind: "at", at: start + 5_000 } as const;
    expect(firstFiring(at, start)).toBe(start + 5_000);
    expect(firstFiring(at, start + 60_000)).toBe(start + 5_000);
    expect(nextFiringAfter(at, start + 5_000)).toBeNull();
  });

  it("names what is wrong with a bad cron expression or time zone", () => {
    expect(timingProblem({ kind: "cron", cron: "not cron", timezone: null })).toMatch(
      /cron expression "not cron" is invalid/,
    );
    expect(timingProblem({ kind: "cron", cron: "0 7 * * *", timezone: "Mars/Olympus" })).toMatch(
      /not an IANA time zone/,
    );
    expect(timingProblem({ kind: "cron", cron: "0 7 31 2 *", timezone: null })).toMatch(
      /never fires|invalid/,
    );
    expect(timingProblem(sevenInBerlin)).toBeNull();
  });

  it("waits before the time, fires on time, and fires a small backlog one by one", () => {
    expect(stepAt(everySecond, "skip", start + 1_000, start + 999)).toEqual({ kind: "wait" });
    expect(stepAt(everySecond, "skip", null, start)).toEqual({ kind: "wait" });
    expect(stepAt(everySecond, "skip", start, start + 300)).toEqual({
      kind: "fire",
      fireAt: start,
      next: start + 1_000,
    });
    expect(stepAt(everySecond, "skip", start, start + 3_000)).toEqual({
      kind: "fire",
      fireAt: start,
      next: start + 1_000,
    });
  });

  it("skips missed firings to the first one after now, or runs the latest once", () => {
    fc.assert(
      fc.property(fc.integer({ min: missedAfterMs + 1, max: 10 * 24 * 3600_000 }), (late) => {
        const now = start + late;
        const skip = stepAt(everySecond, "skip", start, now);
        expect(skip).toEqual({ kind: "skip", next: Math.floor(now / 1000) * 1000 + 1000 });
        const once = stepAt(everySecond, "run_once", start, now);
        const latest = Math.floor(now / 1000) * 1000;
        expect(once).toEqual({ kind: "fire", fireAt: latest, next: latest + 1000 });
      }),
      { numRuns: 50 },
    );
  });

  it("runs a missed one-shot time once with run_once and never with skip", () => {
    const at = { kind: "at", at: start } as const;
    const now = start + missedAfterMs + 1;
    expect(stepAt(at, "run_once", start, now)).toEqual({ kind: "fire", fireAt: start, next: null });
    expect(stepAt(at, "skip", start, now)).toEqual({ kind: "skip", next: null });
  });

  it("finds the latest missed daily firing in its time zone", () => {
    const now = Date.UTC(2026, 0, 10, 12);
    expect(stepAt(sevenInBerlin, "run_once", Date.UTC(2026, 0, 2, 6), now)).toEqual({
      kind: "fire",
      fireAt: Date.UTC(2026, 0, 10, 6),
      next: Date.UTC(2026, 0, 11, 6),
    });
  });
});
