/**
 * Schedules on a cluster of two daemons on one PostgreSQL: both run a scheduler over the same
 * table, yet every firing time's input is admitted once, under its derived id, into the target
 * session or into the one new session derived for it, also when the node firing them is killed
 * mid-way and the other takes over once the killed node's lease expires.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTestClusters } from "./support/cluster-scope.js";
import { sleep } from "./support/daemon-harness.js";
import { documentedFiringId } from "./support/schedule-ids.js";

interface ScheduleAnswer {
  id: string;
  created_at: string;
  last_fired_at: string | null;
}

/** The every-second firing times of `s` through its last firing. */
function firingTimes(s: ScheduleAnswer): number[] {
  const times: number[] = [];
  const last = Date.parse(s.last_fired_at ?? s.created_at);
  for (let at = Math.floor(Date.parse(s.created_at) / 1000) * 1000 + 1000; at <= last; at += 1000)
    times.push(at);
  return times;
}

describe("schedules on a cluster", () => {
  const clusters = useTestClusters();

  it("admits each firing once across two nodes, through a node's crash", async () => {
    const testCluster = clusters.cluster();
    const [a, b] = await testCluster.start(2, 2);
    const sessionId = await a!.createSession();
    const workspace = mkdtempSync(join(tmpdir(), "skein-schedule-cluster-"));
    const bodies = [
      { id: "into-session", cron: "* * * * * *", session_id: sessionId, prompt: "beat", missed: "run_once" },
      {
        id: "new-each-time",
        cron: "* * * * * *",
        new_session: { workspace },
        prompt: "fresh",
        missed: "run_once",
      },
    ];
    for (const body of bodies)
      expect((await b!.api("/schedules", { method: "POST", body })).status).toBe(201);
    await sleep(3_200);
    await a!.kill();
    // The killed node's lease (2 s) expires and B takes its session over, well within the grace.
    await sleep(4_500);
    for (const body of bodies) {
      expect(
        (await b!.api(`/schedules/${body.id}`, { method: "PATCH", body: { paused: true } })).status,
      ).toBe(200);
    }
    await sleep(1_500);
    const schema = testCluster.schema;

    const into = (await b!.api("/schedules/into-session")).json<ScheduleAnswer>();
    const intoTimes = firingTimes(into);
    expect(intoTimes.length).toBeGreaterThanOrEqual(6);
    const admitted = await schema.query<{ id: string }>(
      "SELECT id FROM inputs WHERE session = $1 AND client_id = 'schedule:into-session' ORDER BY acceptance_order",
      [sessionId],
    );
    expect(admitted.map((row) => row.id).sort()).toEqual(
      intoTimes.map((at) => documentedFiringId("input", "into-session", at)).sort(),
    );

    const fresh = (await b!.api("/schedules/new-each-time")).json<ScheduleAnswer>();
    const freshTimes = firingTimes(fresh);
    expect(freshTimes.length).toBeGreaterThanOrEqual(6);
    const freshInputs = await schema.query<{ id: string; session: string }>(
      "SELECT id, session FROM inputs WHERE client_id = 'schedule:new-each-time'",
    );
    expect(freshInputs.map((row) => `${row.session} ${row.id}`).sort()).toEqual(
      freshTimes
        .map(
          (at) =>
            `${documentedFiringId("session", "new-each-time", at)} ${documentedFiringId("input", "new-each-time", at)}`,
        )
        .sort(),
    );
  }, 60_000);
});
