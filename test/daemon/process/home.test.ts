import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureHome, HomeError } from "../../../src/daemon/process/home.js";
import { homePaths } from "../../../src/home/home.js";
import { removeTempRoots, tempRoot } from "./temp-home.js";

afterEach(removeTempRoots);

describe("ensureHome", () => {
  it("creates a missing home (and its parents) with mode 0700", () => {
    const home = join(tempRoot(), "a", "home");
    const previous = process.umask(0o000);
    try {
      expect(ensureHome(home)).toEqual(homePaths(home));
    } finally {
      process.umask(previous);
    }
    expect(statSync(home).mode & 0o777).toBe(0o700);
  });

  it("tightens an existing home that others can read", () => {
    const home = join(tempRoot(), "home");
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);
    ensureHome(home);
    expect(statSync(home).mode & 0o777).toBe(0o700);
  });

  it("refuses a home that is a file", () => {
    const home = join(tempRoot(), "home");
    writeFileSync(home, "x");
    expect(() => ensureHome(home)).toThrow(HomeError);
    expect(() => ensureHome(home)).toThrow(/is not a directory/);
  });

  it.runIf(process.getuid?.() === 0)("refuses a home owned by another user", () => {
    const home = join(tempRoot(), "home");
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, 12_345, 12_345);
    expect(() => ensureHome(home)).toThrow(/owned by uid 12345, not by this user/);
  });
});
