/**
 * Schedules on a cluster of two daemons on one PostgreSQL: both run a scheduler over the same
 * table, yet every firing time's input is admitted once, under its derived id, into the target
 * session or into the one new session derived for it, also when the node firing them is killed
 * mid-way and the other takes over once the killed node's lease expires. A schedule created on
 * one node for a session another node owns is fired by the owner on time: the creation's NOTIFY
 * wakes every node's scheduler, not only the creating node's (schedules-cluster-wake-ups.test.ts).
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

  it("fires on time a one-shot schedule created on one node for a session another node owns", async () => {
    const testCluster = clusters.cluster();
    const [a, b] = await testCluster.start(2, 2);
    // Created through A, the session is A's: B's scheduler leaves the firing to A's.
    const sessionId = await a!.createSession();
    // Both schedulers have looked at an empty table and sleep.
    await sleep(1_500);
    const at = Date.now() + 2_000;
    const body = { id: "elsewhere", at: new Date(at).toISOString(), session_id: sessionId, prompt: "hi" };
    expect((await b!.api("/schedules", { method: "POST", body: { ...body, missed: "skip" } })).status).toBe(
      201,
    );
    let firedAfter = Number.POSITIVE_INFINITY;
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(20)) {
      const fired = (await b!.api("/schedules/elsewhere")).json<{ last_input_id: string | null }>();
      if (fired.last_input_id === null) continue;
      firedAfter = Date.now() - at;
      break;
    }
    expect(firedAfter).toBeLessThan(2_000);
    const admitted = await testCluster.schema.query<{ id: string }>(
      "SELECT id FROM inputs WHERE session = $1 AND client_id = 'schedule:elsewhere'",
      [sessionId],
    );
    expect(admitted.map((row) => row.id)).toEqual([documentedFiringId("input", "elsewhere", at)]);
  }, 60_000);

  it("admits every firing of an every-second schedule for 60 s exactly once on three nodes SIGKILLed and restarted in turn, each in one turn that completed or that a crash cut and its continuation completed", async () => {
    const testCluster = clusters.cluster();
    const nodes = await testCluster.start(3, 2);
    const sessionId = await nodes[0]!.createSession();
    const body = {
      id: "heartbeat",
      cron: "* * * * * *",
      session_id: sessionId,
      prompt: "beat",
      missed: "run_once",
    };
    expect((await nodes[1]!.api("/schedules", { method: "POST", body })).status).toBe(201);
    // Every node dies once and comes back while the schedule fires; two are up at any time.
    const began = Date.now();
    for (let round = 0; Date.now() - began < 60_000; round++) {
      await sleep(8_000);
      const victim = nodes[round % 3]!;
      await victim.kill();
      await sleep(4_000);
      await victim.boot();
    }
    const survivor = nodes[2]!;
    expect(
      (await survivor.api("/schedules/heartbeat", { method: "PATCH", body: { paused: true } })).status,
    ).toBe(200);
    const schema = testCluster.schema;
    // Wait for the queued firings' turns to finish (the fake model answers at once).
    for (let waited = 0; ; waited += 250) {
      const busy = await schema.query<{ n: string }>(
        "SELECT count(*) AS n FROM turns WHERE session = $1 AND state = 'running'",
        [sessionId],
      );
      const queued = await schema.query<{ n: string }>(
        "SELECT count(*) AS n FROM inputs WHERE session = $1 AND delivery = 'pending'",
        [sessionId],
      );
      if (Number(busy[0]!.n) === 0 && Number(queued[0]!.n) === 0) break;
      if (waited > 20_000) throw new Error("the firings' turns did not finish within 20 s");
      await sleep(250);
    }

    const heartbeat = (await survivor.api("/schedules/heartbeat")).json<ScheduleAnswer>();
    const times = firingTimes(heartbeat);
    expect(times.length).toBeGreaterThanOrEqual(55);
    const expected = times.map((at) => documentedFiringId("input", "heartbeat", at)).sort();
    const admitted = await schema.query<{ id: string }>(
      "SELECT id FROM inputs WHERE session = $1 AND client_id = 'schedule:heartbeat'",
      [sessionId],
    );
    expect(admitted.map((row) => row.id).sort()).toEqual(expected);
    // No firing ran twice: each input is in exactly one turn, which completed, or which a crash
    // cut (abandoned) and a turn of no input of its own went on with to completion (the
    // scheduler starts that continuation at once: turn-scheduler.ts, #recoverCutTurn).
    const turns = await schema.query<{ id: string; state: string; input_ids: string; error: string | null }>(
      "SELECT id, state, input_ids, error FROM turns WHERE session = $1 ORDER BY started_at, id",
      [sessionId],
    );
    const described = turns.map((turn) =>
      `${turn.id} ${turn.state} ${turn.input_ids} ${turn.error ?? ""}`.trim(),
    );
    const wrong: { id: string; turns: string[] }[] = [];
    for (const id of expected) {
      const holders = turns.flatMap((turn, at) =>
        (JSON.parse(turn.input_ids) as string[]).includes(id) ? [at] : [],
      );
      let at = holders.length === 1 ? holders[0]! : -1;
      while (at >= 0 && turns[at]!.state === "abandoned") {
        const next = turns[at + 1];
        at = next !== undefined && next.input_ids === "[]" ? at + 1 : -1;
      }
      if (at < 0 || turns[at]!.state !== "completed") {
        const from = holders[0] ?? 0;
        wrong.push({ id, turns: described.slice(from, from + 3) });
      }
    }
    expect(wrong).toEqual([]);
  }, 150_000);
});
