/**
 * Fault injection on a three-node cluster under client traffic (support/cluster-faults.ts): a
 * few cycles, one of each fault (SIGKILL, SIGSTOP past the lease then SIGCONT with traffic at
 * once, SIGTERM, a PostgreSQL restart, PostgreSQL killed with all its backends), then the
 * invariants: no node died of a fault it was not given, no 500 and no `log_corrupt`, every 503
 * with Retry-After, every acknowledged input delivered exactly once, every log verifies, and
 * every entry written by the node that held the session's lease. The long run (100+ cycles)
 * with its figures is the bench suite `cluster-faults`. SKEIN_TORTURE_SEED=<seed> replays the
 * random choices.
 */
import { randomBytes } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { HeadSigner } from "../../src/log/head-signer.js";
import { deliver, text } from "../support/fake-provider/reply.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { createPgSchema } from "../support/pg-schema.js";
import { runFaults } from "./support/cluster-faults.js";
import { exchange } from "./support/cluster-traffic.js";
import { DaemonHarness, sleep } from "./support/daemon-harness.js";
import { eventually, profileFor } from "./support/fixture.js";
import { SeededRandom, seedFromEnvironment } from "./support/seeded-random.js";

describe("fault injection on a cluster", () => {
  const fake = withFakeProvider();

  it("keeps every invariant through one fault of each kind under traffic", async () => {
    const seed = seedFromEnvironment();
    const report = await runFaults({
      provider: fake(),
      random: new SeededRandom(seed),
      seed,
      cycles: 5,
      progress: (index, cycle) =>
        console.log(`cycle ${index}: ${cycle.kind}, takeover ${cycle.takeoverMs} ms`),
    });
    expect(report.violations, `seed ${seed}`).toEqual([]);
    expect(report.cycles.map((cycle) => cycle.kind)).toEqual([
      "sigkill",
      "sigstop",
      "sigterm",
      "db_restart",
      "db_kill",
    ]);
    expect(report.inputs.acknowledged).toBeGreaterThan(0);
    // The audit saw the entries written (it checks something).
    expect(report.audited).toBeGreaterThan(report.inputs.acknowledged);
  }, 240_000);

  it("fences per actor: a node paused past its lease, resumed with traffic at once, claims its session again and nothing its old actor queued commits", async () => {
    const schema = await createPgSchema("skein_sigstop");
    fake().reset();
    // Answers that trickle in: while the node is paused they pile up in its socket.
    fake().script = (request) =>
      deliver(text(["the ", "answer ", `${request.index} `, "trickles ", "in"]), { delayMs: 150 });
    const node = await DaemonHarness.start({
      providers: profileFor(fake()),
      env: { SKEIN_DB: schema.url, SKEIN_TOKEN: randomBytes(24).toString("hex"), SKEIN_LEASE_SECONDS: "2" },
      signingKeyPem: HeadSigner.generate().privateKeyPem(),
    });
    try {
      const sessionId = await node.createSession();
      const sent: string[] = [];
      const put = async (inputId: string) => {
        for (;;) {
          const answer = await exchange(node, "PUT", `/sessions/${sessionId}/inputs/${inputId}`, {
            kind: "message",
            text: `input ${inputId}`,
          });
          if (answer.status === 202) return;
          expect([answer.status, answer.headers["retry-after"]], answer.text).toEqual([503, "1"]);
          await sleep(100);
        }
      };
      for (let round = 0; round < 3; round++) {
        const first = uuidv7();
        sent.push(first);
        await put(first);
        await fake().waitForRequests(round + 1);
        process.kill(node.pid, "SIGSTOP");
        await sleep(2_000 + 1_200);
        process.kill(node.pid, "SIGCONT");
        // Traffic at once: the node's old actor is still there, with a commit on its way.
        const burst = [uuidv7(), uuidv7(), uuidv7()];
        sent.push(...burst);
        await Promise.all(burst.map((inputId) => put(inputId)));
        await node.idle(sessionId, 30_000);
      }
      for (const inputId of sent) {
        await eventually(`input ${inputId} to be delivered`, async () => {
          const receipt = await node.receipt(sessionId, inputId);
          return receipt.delivery === "committed" ? true : undefined;
        });
      }
      const verify = (await node.api(`/sessions/${sessionId}/verify`)).json<{ status: string }>();
      expect(verify.status).toBe("verified");
      const log = node.readLog();
      expect(log).not.toMatch(/another writer appended|failed verification|session actor crashed/);
      const rows = await schema.query<{ input_id: string; n: number }>(
        "SELECT entry::json->>'input_id' AS input_id, count(*)::int AS n FROM transcript WHERE kind = 'user_input' GROUP BY 1",
      );
      expect(new Map(rows.map((row) => [row.input_id, row.n]))).toEqual(new Map(sent.map((id) => [id, 1])));
      // Each pause outlived the lease, so the node claimed the session again each time: a new
      // epoch (and a new actor) per round, epoch 1 being the creation's.
      const [lease] = await schema.query<{ epoch: number }>("SELECT epoch::int AS epoch FROM session_leases");
      expect(lease!.epoch).toBeGreaterThanOrEqual(4);
    } finally {
      try {
        process.kill(node.pid, "SIGCONT");
      } catch {
        // gone
      }
      await node.close();
      await schema.drop();
    }
  }, 120_000);
});
