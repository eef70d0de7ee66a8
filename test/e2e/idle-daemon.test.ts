/**
 * An idle daemon (SQLite, no session loaded, nobody reading its metrics) sleeps: its event loop
 * wakes about once a minute (the scheduler's and the outbox's longest sleep), not for an
 * event-loop sampler or a poll of the database every second. Counted as the main thread's
 * voluntary context switches (each wake-up of the loop is one), on Linux.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sleep } from "./support/daemon-harness.js";
import { useSharedFixture } from "./support/fixture.js";

/** The voluntary context switches of the process's main thread so far. */
function mainThreadSwitches(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, "utf8");
  const match = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status);
  if (match === null) throw new Error(`no voluntary_ctxt_switches in /proc/${pid}/task/${pid}/status`);
  return Number(match[1]);
}

describe.runIf(process.platform === "linux")("an idle daemon", () => {
  const shared = useSharedFixture({ answer: "ok" });

  it("wakes its event loop a few times in four seconds, not ten times a second", async () => {
    const { app } = shared;
    // The boot's own work settles (the first scheduler and outbox looks, the readiness poll).
    await sleep(1_500);
    const before = mainThreadSwitches(app.pid);
    await sleep(4_000);
    const woken = mainThreadSwitches(app.pid) - before;
    // Before the samplers and polls slept, this was 48 (10 a second for the event-loop sampler,
    // 2 for the polls); now 0-2, but one of V8's memory-reducing collections after the boot may
    // fall in the window and add about 13 (its helper threads' hand-offs).
    expect(woken).toBeLessThan(25);
  });
});
