import { describe, expect, it } from "vitest";
import { DrainController } from "../../../src/daemon/process/drain.js";
import { startFixture } from "./child-process.js";

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("DrainController", () => {
  it("is ready until a drain begins", async () => {
    const drain = new DrainController();
    expect(drain.state).toBe("ready");
    expect(await drain.begin(1000)).toEqual({ timedOut: false, pending: 0 });
    expect(drain.state).toBe("draining");
    expect(drain.draining).toBe(true);
  });

  it("waits for tracked work, failed work included", async () => {
    const drain = new DrainController();
    const a = deferred();
    const b = deferred();
    drain.track(a.promise);
    drain.track(b.promise);
    let done = false;
    const outcome = drain.begin(60_000).then((result) => {
      done = true;
      return result;
    });
    a.resolve();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    expect(drain.pending).toBe(1);
    b.reject(new Error("turn failed"));
    expect(await outcome).toEqual({ timedOut: false, pending: 0 });
  });

  it("gives up after the timeout and reports what was still running", async () => {
    const drain = new DrainController();
    drain.track(new Promise(() => undefined));
    expect(await drain.begin(50)).toEqual({ timedOut: true, pending: 1 });
  });

  it("does not start a second drain", async () => {
    const drain = new DrainController();
    const work = deferred();
    drain.track(work.promise);
    const first = drain.begin(60_000);
    const second = drain.begin(1);
    expect(second).toBe(first);
    work.resolve();
    expect(await second).toEqual({ timedOut: false, pending: 0 });
  });
});

describe("installSignalHandlers", () => {
  it("drains once on SIGTERM, ignores a second signal, and exits 0", async () => {
    const child = startFixture("drain-on-signal");
    try {
      await child.waitFor("ready");
      child.process.kill("SIGTERM");
      await child.waitFor("drain 1 SIGTERM");
      child.process.kill("SIGINT");
      const { code } = await child.exited;
      expect(code).toBe(0);
      expect(child.output()).toContain("drained");
      expect(child.output()).toContain("received SIGINT while draining; still draining");
      expect(child.output()).not.toContain("drain 2");
    } finally {
      child.process.kill("SIGKILL");
    }
  });
});
