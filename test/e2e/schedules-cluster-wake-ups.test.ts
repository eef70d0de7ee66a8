/**
 * A cluster node's scheduler sleeps until the earliest firing in the shared table (at most a few
 * seconds), and a schedule changed through another node wakes it by NOTIFY at that change's
 * commit; when its wake-up connection is lost and comes back, it looks once, since what was
 * announced meanwhile is lost. Each test first changes a schedule through A, so A's scheduler
 * has just looked and its bounded sleep would end seconds after the firing it must make: only
 * a wake-up makes A fire within a second of its time.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { useTestClusters } from "./support/cluster-scope.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { sleep } from "./support/daemon-harness.js";
import { documentedFiringId } from "./support/schedule-ids.js";
import type { TestCluster } from "./support/test-cluster.js";

/** The application name node A's connections carry (to find its LISTEN connection). */
function nodeName(cluster: TestCluster, index: number): string {
  return `${cluster.schema.name}_${index}`;
}

/** Two nodes whose database connections are named after them. */
function startNamed(cluster: TestCluster): Promise<DaemonHarness[]> {
  return cluster.start(2, 2, (index) => ({
    env: { SKEIN_DB: `${cluster.schema.url}&application_name=${nodeName(cluster, index)}` },
  }));
}

/** A one-shot schedule of `sessionId` at `at`, created through `node`. */
async function createAt(node: DaemonHarness, id: string, sessionId: string, at: number): Promise<void> {
  const body = { id, at: new Date(at).toISOString(), session_id: sessionId, prompt: id, missed: "skip" };
  expect((await node.api("/schedules", { method: "POST", body })).status).toBe(201);
}

/** A change through A itself: its scheduler looks now, then sleeps its longest sleep (5 s). */
async function lookNow(a: DaemonHarness, sessionId: string): Promise<void> {
  await createAt(a, "far-away", sessionId, Date.now() + 3_600_000);
}

/** How long after `at` the schedule's firing was seen (polled through `node`). */
async function firedAfter(node: DaemonHarness, id: string, at: number): Promise<number> {
  for (const deadline = at + 10_000; Date.now() < deadline; await sleep(20)) {
    const fired = (await node.api(`/schedules/${id}`)).json<{ last_input_id: string | null }>();
    if (fired.last_input_id !== null) return Date.now() - at;
  }
  return Number.POSITIVE_INFINITY;
}

/** The ids of the inputs schedule `id` admitted. */
async function admitted(cluster: TestCluster, id: string): Promise<string[]> {
  const rows = await cluster.schema.query<{ id: string }>("SELECT id FROM inputs WHERE client_id = $1", [
    `schedule:${id}`,
  ]);
  return rows.map((row) => row.id);
}

/** The backend pids of node `index`'s wake-up connection (the scheduler's wake-ups among its channels). */
async function scheduleListeners(cluster: TestCluster, index: number): Promise<number[]> {
  const rows = await cluster.schema.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'",
    [nodeName(cluster, index)],
  );
  return rows.map((row) => row.pid);
}

describe("schedule wake-ups on a cluster", () => {
  const clusters = useTestClusters();

  it("fires within a second of its time a schedule created through B for a session A owns while A's scheduler sleeps", async () => {
    const cluster = clusters.cluster();
    const [a, b] = await startNamed(cluster);
    // Created through A, the session is A's: B's scheduler leaves its firings to A's.
    const sessionId = await a!.createSession();
    await lookNow(a!, sessionId);
    const at = Date.now() + 2_000;
    await createAt(b!, "through-b", sessionId, at);
    expect(await firedAfter(b!, "through-b", at)).toBeLessThan(1_000);
    expect(await admitted(cluster, "through-b")).toEqual([documentedFiringId("input", "through-b", at)]);
  }, 60_000);

  it("never fires a schedule deleted through B before its time", async () => {
    const cluster = clusters.cluster();
    const [a, b] = await startNamed(cluster);
    const sessionId = await a!.createSession();
    await lookNow(a!, sessionId);
    const at = Date.now() + 1_500;
    await createAt(b!, "deleted", sessionId, at);
    // A now sleeps until the firing; the deletion wakes it and it finds nothing due.
    expect((await b!.api("/schedules/deleted", { method: "DELETE" })).status).toBe(200);
    await sleep(at + 2_500 - Date.now());
    expect(await admitted(cluster, "deleted")).toEqual([]);
    expect((await a!.api("/schedules/deleted")).status).toBe(404);
  }, 60_000);

  it("fires on time a change A was never told of once A's lost wake-up connection is back", async () => {
    const cluster = clusters.cluster();
    const [a, b] = await startNamed(cluster);
    const sessionId = await a!.createSession();
    const at = Date.now() + 3_000;
    await createAt(b!, "unannounced", sessionId, at);
    // Paused through A: A looks now and, nothing being due, sleeps its longest sleep.
    const paused = await a!.api("/schedules/unannounced", { method: "PATCH", body: { paused: true } });
    expect(paused.status).toBe(200);
    // Resumed behind every node's back: the NOTIFY a node would send never reaches A, as if
    // it had been sent while A's wake-up connection was down.
    await cluster.schema.query("UPDATE schedules SET paused = 0 WHERE id = 'unannounced'");
    const [lost] = await eventually("A to listen", async () => {
      const pids = await scheduleListeners(cluster, 0);
      return pids.length === 1 ? pids : undefined;
    });
    await cluster.schema.query("SELECT pg_terminate_backend($1)", [lost]);
    await eventually("A to listen again", async () => {
      const pids = await scheduleListeners(cluster, 0);
      return pids.length === 1 && pids[0] !== lost ? true : undefined;
    });
    expect(await firedAfter(b!, "unannounced", at)).toBeLessThan(1_000);
    expect(await admitted(cluster, "unannounced")).toEqual([documentedFiringId("input", "unannounced", at)]);
  }, 60_000);
});
