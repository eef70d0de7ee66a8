import { describe, expect, it } from "vitest";
import { CancelRace } from "../../src/worker/cancel-race.js";

describe("CancelRace", () => {
  const cancelled = new Error("cancelled");

  it("passes a step's value and error through while the run goes on", async () => {
    const race = new CancelRace(new AbortController().signal, () => cancelled);
    await expect(race.until(Promise.resolve(7))).resolves.toBe(7);
    await expect(race.until(Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });

  it("rejects every waiting step with the cancellation as soon as the signal aborts, even if the work never settles", async () => {
    const controller = new AbortController();
    const race = new CancelRace(controller.signal, () => cancelled);
    const never = new Promise<number>(() => {});
    const steps = [race.until(never), race.until(never)];
    controller.abort();
    for (const step of steps) await expect(step).rejects.toBe(cancelled);
  });

  it("rejects a step started after the abort at once, and swallows that work's later failure", async () => {
    const controller = new AbortController();
    controller.abort();
    const race = new CancelRace(controller.signal, () => cancelled);
    let fail: (error: Error) => void = () => {};
    const late = new Promise<number>((_, reject) => {
      fail = reject;
    });
    await expect(race.until(late)).rejects.toBe(cancelled);
    fail(new Error("ignored"));
    await new Promise((resolve) => setImmediate(resolve));
  });
});
