import { afterEach, describe, expect, it } from "vitest";
import { writeDiscoveryFile } from "../../../src/daemon/process/discovery-file.js";
import { HomeLock, HomeLockedError } from "../../../src/daemon/process/home-lock.js";
import { thrownBy } from "../../support/rejection.js";
import { startFixture } from "./child-process.js";
import { newHome, removeTempRoots } from "./temp-home.js";

afterEach(removeTempRoots);

function lockError(home: string): HomeLockedError {
  return thrownBy(
    () => HomeLock.acquire(home).release(),
    (error) => error instanceof HomeLockedError,
    "the second lock was granted",
  );
}

describe("HomeLock", () => {
  it("refuses a second lock on the same home until the first is released", () => {
    const home = newHome();
    const first = HomeLock.acquire(home);
    const error = lockError(home);
    expect(error.message).toBe(`another Skein daemon is running for home ${home}`);
    first.release();
    expect(first.held).toBe(false);
    const second = HomeLock.acquire(home);
    expect(second.held).toBe(true);
    second.release();
    second.release();
  });

  it("names the holder's pid from daemon.json", async () => {
    const home = newHome();
    const lock = HomeLock.acquire(home);
    await writeDiscoveryFile(home, {
      pid: 31_337,
      port: 40_000,
      token: "x".repeat(32),
      version: 3,
      instance_id: "i",
    });
    const error = lockError(home);
    expect(error.pid).toBe(31_337);
    expect(error.message).toBe(`another Skein daemon (pid 31337) is running for home ${home}`);
    lock.release();
  });

  it("locks different homes independently", () => {
    const a = HomeLock.acquire(newHome());
    const b = HomeLock.acquire(newHome());
    a.release();
    b.release();
  });

  it("is held against another process and freed by the OS when that process is SIGKILLed", async () => {
    const home = newHome();
    const child = startFixture("hold-lock", [home]);
    try {
      await child.waitFor("locked true");
      expect(lockError(home).home).toBe(home);
      child.process.kill("SIGKILL");
      expect((await child.exited).signal).toBe("SIGKILL");
      const lock = HomeLock.acquire(home);
      expect(lock.held).toBe(true);
      lock.release();
    } finally {
      child.process.kill("SIGKILL");
    }
  });

  it("makes a child process fail while this process holds the lock", async () => {
    const home = newHome();
    const lock = HomeLock.acquire(home);
    try {
      const child = startFixture("hold-lock", [home]);
      const { code } = await child.exited;
      expect(code).not.toBe(0);
      expect(child.output()).toContain(`another Skein daemon is running for home ${home}`);
    } finally {
      lock.release();
    }
  });
});
