import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileStamp, recheckStamps, StampCheck } from "../../../src/daemon/process/file-stamp.js";
import { newHome, removeTempRoots } from "./temp-home.js";

afterEach(removeTempRoots);

const nextIteration = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Rewrite `path` with a later mtime for sure (same size: only the stamp's mtime moves). */
function rewrite(path: string, text: string, secondsLater: number): void {
  writeFileSync(path, text);
  const later = new Date(Date.now() + secondsLater * 1000);
  utimesSync(path, later, later);
}

describe("StampCheck", () => {
  it("stats the file once per event-loop iteration, and sees a change in the next one", async () => {
    const path = join(newHome(), "config.json");
    const check = new StampCheck(path);
    expect(check.now()).toBe("absent");
    writeFileSync(path, "{}");
    // The same iteration: the stamp taken is kept.
    expect(check.now()).toBe("absent");
    await nextIteration();
    expect(check.now()).toBe(fileStamp(path));
    const before = check.now();
    rewrite(path, "[]", 5);
    await nextIteration();
    expect(check.now()).not.toBe(before);
    expect(check.now()).toBe(fileStamp(path));
  });

  it("stats the file again at once after recheckStamps (an HTTP request arrived)", () => {
    const path = join(newHome(), "secrets.json");
    const checks = [new StampCheck(path), new StampCheck(path)];
    for (const check of checks) expect(check.now()).toBe("absent");
    writeFileSync(path, "{}");
    recheckStamps();
    for (const check of checks) expect(check.now()).toBe(fileStamp(path));
  });

  it("keeps no stamp whose stat failed", async () => {
    const home = newHome();
    const path = join(home, "config.json", "inside");
    writeFileSync(join(home, "config.json"), "{}");
    const check = new StampCheck(path);
    expect(() => check.now()).toThrow(/ENOTDIR/);
    expect(() => check.now()).toThrow(/ENOTDIR/);
    await nextIteration();
    expect(() => check.now()).toThrow(/ENOTDIR/);
  });
});
