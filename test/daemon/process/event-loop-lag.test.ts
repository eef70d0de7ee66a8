/**
 * The event-loop lag metrics sample only while they are read: nothing runs before the first
 * read, each read reports the delays since the one before (a blocked loop shows in them), and
 * sampling stops once nobody has read them for a while.
 */
import { setTimeout as sleep } from "node:timers/promises";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { EventLoopLag, eventLoopLagNames } from "../../../src/daemon/process/event-loop-lag.js";

/** Every `test_` sample of one read of `registry`, by name. */
async function read(registry: Registry): Promise<Map<string, number>> {
  const families = parsePrometheusTextFormat(await registry.metrics());
  return new Map(families.map((family) => [family.name, Number(family.metrics[0]?.value)]));
}

/** Keep the event loop busy for `ms`. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("the event-loop lag metrics", () => {
  const started: EventLoopLag[] = [];
  afterEach(() => {
    for (const lag of started.splice(0)) lag.stop();
  });

  it("start sampling at the first read and report the delays since the previous read", async () => {
    const registry = new Registry();
    const lag = new EventLoopLag(registry, "test_");
    started.push(lag);
    expect(lag.sampling).toBe(false);
    const first = await read(registry);
    expect([...first.keys()].sort()).toEqual(eventLoopLagNames.map((name) => `test_${name}`).sort());
    // No sample before the first read: its figures are 0.
    expect(first.get("test_nodejs_eventloop_lag_p99_seconds")).toBe(0);
    expect(lag.sampling).toBe(true);
    await sleep(250);
    block(400);
    await sleep(150);
    const second = await read(registry);
    // A sample every 100 ms: one of them waited out the 400 ms block.
    expect(second.get("test_nodejs_eventloop_lag_max_seconds")).toBeGreaterThan(0.4);
    expect(second.get("test_nodejs_eventloop_lag_min_seconds")).toBeGreaterThan(0.09);
    expect(second.get("test_nodejs_eventloop_lag_min_seconds")).toBeLessThan(0.2);
    await sleep(250);
    const third = await read(registry);
    // The block was before the previous read: this one does not see it.
    expect(third.get("test_nodejs_eventloop_lag_max_seconds")).toBeLessThan(0.3);
    expect(third.get("test_nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
  });

  it("stops sampling once nobody has read the metrics for its unread time, and starts again at a read", async () => {
    const registry = new Registry();
    const lag = new EventLoopLag(registry, "test_", 300);
    started.push(lag);
    await read(registry);
    await sleep(200);
    await read(registry);
    await sleep(200);
    expect(lag.sampling).toBe(true);
    await sleep(400);
    expect(lag.sampling).toBe(false);
    await read(registry);
    expect(lag.sampling).toBe(true);
  });
});
