/**
 * Fencing per actor, on the real PostgreSQL: a session's writes are checked against the lease
 * epoch the writing actor was loaded under, not the node's. An actor left over from an older
 * claim (its node lost the session, then claimed it again) commits nothing, even what it had
 * queued before the new claim; a late append of an old owner is reported as fenced, not as a
 * conflict that reads as corruption; and a lease row a node no longer holds is not kept alive
 * by its renewals, so the session's waiting input is claimed elsewhere. A session created with
 * its first input is built under the lease its creation took: the creation, the lease and the
 * turn's start in one commit, and that actor fenced as any other.
 */

import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { SessionRegistry } from "../../../src/daemon/actor/session-registry.js";
import { ClusterNode } from "../../../src/daemon/cluster/cluster-node.js";
import { SessionOwnedElsewhereError } from "../../../src/daemon/cluster/session-owned-elsewhere.js";
import { SessionExistsError } from "../../../src/daemon/errors.js";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import { WriteFencedError } from "../../../src/daemon/storage/session-storage.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { textBlockStart, textBlockStop, textDelta } from "../../../src/model/events.js";
import { userMessage } from "../../../src/model/items.js";
import { eventually } from "../../support/eventually.js";
import { unnamedSource } from "../../support/input-source.js";
import { MockLlmClient, mockDelay } from "../../support/mock-llm-client.js";
import {
  createTestSession,
  type TestServices,
  testServices,
  testSessionRequest,
} from "../session/session-services.js";
import { quiet, type StartedNode, start, ts, withNodesOnFreshSchema } from "./nodes-on-schema.js";
import { wakeUpsOn } from "./wake-ups-on.js";

interface Node extends StartedNode {
  /** Sessions claimed by the node's scan. */
  adopted: string[];
}

// One head-signing key for the cluster, as the nodes of a real one share it.
const signer = HeadSigner.generate();

let env: TestServices | null = null;
const cluster = withNodesOnFreshSchema<Node>("skein_actor_fence", async () => {
  await env?.cleanup();
  env = null;
});

/** This suite's connections, named so that the test can find them in pg_stat_activity. */
function appUrl(): string {
  return `${cluster.schema.url}&application_name=${cluster.schema.name}`;
}

/** A node on the schema as the daemon starts one; `lost` and `adopt` as the daemon wires them, to `registry`. */
async function startNode(
  options: { leaseMs?: number; pollMs?: number; registry?: () => SessionRegistry | null } = {},
): Promise<Node> {
  const storage = new PgSessionStorage(await openPgDaemonDatabase(appUrl(), { max: 8 }), { signer });
  const adopted: string[] = [];
  const node = new ClusterNode(storage.pool, {
    nodeId: uuidv7(),
    url: `http://127.0.0.1:${41000 + cluster.nodes.length}`,
    leaseMs: options.leaseMs ?? 60_000,
    pollMs: options.pollMs ?? 3_600_000,
    signer,
    logger: quiet,
    adopt: async (sessionId) => {
      adopted.push(sessionId);
      await options.registry?.()?.get(sessionId);
    },
    lost: (sessionId, epoch) => options.registry?.()?.leaseLost(sessionId, epoch),
  });
  storage.fenceWith(node);
  const started = { storage, node, adopted, wakeUps: await wakeUpsOn(appUrl()) };
  cluster.nodes.push(started);
  await node.start(started.wakeUps);
  return started;
}

/** A model that answers every request with "ok". */
function answering(): () => MockLlmClient {
  return () => new MockLlmClient([textBlockStart(0), textDelta(0, "ok"), textBlockStop(0)]);
}

describe("fencing per actor", () => {
  it("refuses what an actor of an older claim had queued once the same node claimed the session again, and the current actor takes the input", async () => {
    env = testServices(answering());
    let registry: SessionRegistry | null = null;
    // Renewals every 300 ms: the node notices the lost lease quickly.
    const a = await startNode({ leaseMs: 900, registry: () => registry });
    registry = new SessionRegistry({ ...env.services, storage: a.storage, ownership: a.node });
    const create = async () => {
      const id = uuidv7();
      await registry!.create({
        id,
        workspace: env!.workspace,
        name: null,
        providerProfile: null,
        model: null,
        systemPrompt: null,
      });
      return id;
    };
    const session = await create();
    const other = await create();
    const old = await registry.get(session);

    // Hold up the node's group commit: a write of the other session waits for a row lock.
    const locker = new pg.Client({ connectionString: cluster.schema.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE", [other]);
      const held = registry.withActor(other, (actor) => actor.setApprovalPolicy({ approval_policy: null }));
      await eventually("the other session's write to wait for the lock", async () => {
        const rows = await cluster.schema.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
          [cluster.schema.name],
        );
        return rows[0]!.n > 0 ? true : undefined;
      });
      // A request reaches the session's actor: its admission queues behind that transaction.
      const inputId = uuidv7();
      const answered = registry.withActor(session, (actor) =>
        actor.submit(inputId, { kind: "message", text: "queued on the old actor" }, unnamedSource),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(a.storage.commitStats().requests).toBeGreaterThan(0);

      // The lease runs out (a pause, say); the node notices and drops the session...
      await cluster.schema.query("UPDATE session_leases SET expires_at = 0 WHERE session = $1", [session]);
      await eventually("the node to drop the session", () => (a.node.holds(session) ? undefined : true));
      expect(old.stopped).toBe(true);
      // ...and claims it again at the next request: a new epoch, a new actor.
      const current = await registry.get(session);
      expect(current).not.toBe(old);
      expect((await a.node.leaseOf(session))?.epoch).toBe(2);

      await locker.query("COMMIT");
      await held;
      // The old actor's admission was refused; the request was answered by the current actor.
      const receipt = await answered;
      expect(receipt.id).toBe(inputId);
      await eventually("the input's turn to complete", async () => {
        const stored = await a.storage.getReceipt(session, inputId);
        return stored?.turn?.state === "completed" ? true : undefined;
      });
    } finally {
      await locker.end().catch(() => undefined);
    }
    // The log is whole and the current actor keeps writing it.
    const actor = await registry.get(session);
    const next = uuidv7();
    await actor.submit(next, { kind: "message", text: "and the next one" }, unnamedSource);
    await eventually("the next turn to complete", async () =>
      (await a.storage.getReceipt(session, next))?.turn?.state === "completed" ? true : undefined,
    );
    expect((await actor.snapshot(0)).status.blocking_reason ?? null).toBeNull();
    const texts = (await a.storage.readLog(session))
      .filter(({ entry }) => entry.kind === "user_input")
      .map(({ entry }) => (entry.kind === "user_input" ? JSON.stringify(entry.item) : ""));
    expect(texts.filter((text) => text.includes("queued on the old actor"))).toHaveLength(1);
    await registry.drain(1000);
  });

  it("refuses a late append of the old owner as fenced, not as a conflict, after the new owner appended", async () => {
    const [a, b] = [await startNode(), await startNode()];
    await a!.storage.createSession({ id: "s", workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
    const stale = a!.storage.writerFrom("s", await a!.storage.readLog("s"));
    await cluster.schema.query("UPDATE session_leases SET expires_at = 0 WHERE session = 's'");
    await b!.node.acquire("s");
    const owner = b!.storage.writerFrom("s", await b!.storage.readLog("s"));
    await owner.append([{ kind: "user_input", ts, item: userMessage("from the new owner") }], {});
    const before = await cluster.schema.query("SELECT position, hash FROM transcript WHERE session = 's'");

    await expect(
      stale.append([{ kind: "user_input", ts, item: userMessage("late, from the old owner") }], {}),
    ).rejects.toBeInstanceOf(WriteFencedError);
    expect(await cluster.schema.query("SELECT position, hash FROM transcript WHERE session = 's'")).toEqual(
      before,
    );
  });

  it("answers a request that reaches the old owner's actor after a takeover as owned elsewhere, not as a corrupt log", async () => {
    env = testServices(answering());
    let registry: SessionRegistry | null = null;
    const a = await startNode({ registry: () => registry });
    const b = await startNode();
    registry = new SessionRegistry({ ...env.services, storage: a.storage, ownership: a.node });
    const id = await createTestSession(registry, env.workspace);
    const old = await registry.get(id);
    // B takes the session over (A was paused past its lease, say) and writes to it; A has not
    // noticed yet (its next renewal is 20 s away).
    await cluster.schema.query("UPDATE session_leases SET expires_at = 0 WHERE session = $1", [id]);
    await b.node.acquire(id);
    const writer = b.storage.writerFrom(id, await b.storage.readLog(id));
    await writer.append([{ kind: "user_input", ts, item: userMessage("on B") }], {});

    const answered = await registry
      .withActor(id, (actor) => actor.submit(uuidv7(), { kind: "message", text: "to A" }, unnamedSource))
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(answered).toBeInstanceOf(SessionOwnedElsewhereError);
    expect(old.stopped).toBe(true);
    expect(a.node.holds(id)).toBe(false);
  });

  it("does not let a node paused in the middle of a transaction keep another node from taking its session", async () => {
    // A: its storage and fence as a daemon opens them (idle transactions end after half its
    // lease), but no renewals: a paused process renews nothing.
    const leaseMs = 1_000;
    const storage = new PgSessionStorage(
      await openPgDaemonDatabase(appUrl(), { max: 4, idleInTransactionMs: leaseMs / 2 }),
      { signer },
    );
    const a = new ClusterNode(storage.pool, {
      nodeId: uuidv7(),
      url: "http://127.0.0.1:41999",
      leaseMs,
      signer,
      logger: quiet,
      adopt: async () => {},
      lost: () => {},
    });
    storage.fenceWith(a);
    cluster.nodes.push({ storage, node: a, adopted: [] });
    await storage.createSession({ id: "s", workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
    // Paused mid-commit: the fence's share lock on the lease row, in a transaction that waits.
    const paused = await storage.pool.connect();
    await paused.query("BEGIN");
    await paused.query("SELECT node_id, epoch FROM session_leases WHERE session = 's' FOR SHARE");
    try {
      const b = await startNode();
      await new Promise((resolve) => setTimeout(resolve, leaseMs + 100));
      const started = Date.now();
      expect(await b.node.acquire("s")).toBe(2);
      expect(Date.now() - started).toBeLessThan(leaseMs * 3);
    } finally {
      paused.release(true);
    }
  });

  it("lets a lease row that names the node but that it no longer holds expire, so another node claims the waiting input", async () => {
    const a = await startNode({ leaseMs: 1_000 });
    const b = await startNode({ pollMs: 200 });
    // Created on B, with an input waiting; then the lease names A, as after A claimed the
    // session and dropped it again (it could not renew during an outage).
    await b.storage.createSession({ id: "s", workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
    await b.storage.admitInput({
      session: "s",
      id: "i",
      kind: "message",
      intent: { text: "i" },
      acceptedAt: ts,
    });
    await cluster.schema.query(
      `UPDATE session_leases SET node_id = $1, epoch = epoch + 1,
         expires_at = (extract(epoch from clock_timestamp()) * 1000)::bigint + 1000 WHERE session = 's'`,
      [a.node.nodeId],
    );
    expect(a.node.holds("s")).toBe(false);

    await eventually("B to claim the session", () => (b.adopted.includes("s") ? true : undefined), 6_000);
    expect((await b.node.leaseOf("s"))?.node_id).toBe(b.node.nodeId);
  });
  it("creates a leased session with its first input, its lease and its turn's start in one commit, and ends the turn in a second", async () => {
    env = testServices(answering());
    let registry: SessionRegistry | null = null;
    const a = await startNode({ registry: () => registry });
    registry = new SessionRegistry({ ...env.services, storage: a.storage, ownership: a.node });
    const id = uuidv7();
    const inputId = uuidv7();
    const before = a.storage.commitStats().transactions;
    const created = await registry.create({
      ...testSessionRequest(id, env.workspace),
      firstInput: { id: inputId, intent: { kind: "message", text: "Hi" }, source: unnamedSource },
    });
    expect(a.storage.commitStats().transactions - before).toBe(1);
    expect(await created.firstInput?.()).toMatchObject({ delivery: "committed", turn: { state: "running" } });
    // Built under the epoch the creation took, with no claim of its own.
    expect(created.actor.epoch).toBe(1);
    expect(await a.node.leaseOf(id)).toMatchObject({ node_id: a.node.nodeId, epoch: 1, live: true });
    await eventually("the turn to complete", async () =>
      (await a.storage.getReceipt(id, inputId))?.turn?.state === "completed" ? true : undefined,
    );
    await eventually("the actor to settle", () => (created.actor.busy ? undefined : true));
    // The turn's end is the only other commit.
    expect(a.storage.commitStats().transactions - before).toBe(2);
    await registry.drain(1000);
  });

  it("refuses the turn's end of an actor its creation built once another node took the lease, and the new owner recovers the turn", async () => {
    // The first turn answers after a pause, long enough for a takeover meanwhile.
    let turns = 0;
    env = testServices(() => {
      turns++;
      const steps = [textBlockStart(0), textDelta(0, "ok"), textBlockStop(0)];
      return new MockLlmClient(turns === 1 ? [mockDelay(600), ...steps] : steps);
    });
    let registryA: SessionRegistry | null = null;
    const a = await startNode({ registry: () => registryA });
    const b = await startNode();
    registryA = new SessionRegistry({ ...env.services, storage: a.storage, ownership: a.node });
    const id = uuidv7();
    const inputId = uuidv7();
    const created = await registryA.create({
      ...testSessionRequest(id, env.workspace),
      firstInput: { id: inputId, intent: { kind: "message", text: "Hi" }, source: unnamedSource },
    });
    const startedTurn = (await created.firstInput?.())?.turn?.id;
    // B takes the session over while the turn runs (A paused past its lease, say).
    await cluster.schema.query("UPDATE session_leases SET expires_at = 0 WHERE session = $1", [id]);
    expect(await b.node.acquire(id)).toBe(2);
    const logged = (await a.storage.readLog(id)).length;
    await eventually("A's actor to stop, fenced", () => (created.actor.stopped ? true : undefined), 5_000);
    expect(registryA.loaded(id)).toBeUndefined();
    // Nothing of A's turn's end committed: its log did not grow, its turn is still running.
    expect(await a.storage.readLog(id)).toHaveLength(logged);
    expect((await b.storage.getReceipt(id, inputId))?.turn).toMatchObject({
      id: startedTurn,
      state: "running",
    });

    const registryB = new SessionRegistry({ ...env.services, storage: b.storage, ownership: b.node });
    await registryB.get(id);
    await eventually("B to recover the turn A started", async () =>
      (await b.storage.runningTurns()).some((turn) => turn.session === id) ? undefined : true,
    );
    await registryB.drain(1000);
    await registryA.drain(1000);
  });
  it("ends two nodes' creations of the same id with its first input racing as one session, one input and one turn, leased by the winner alone", async () => {
    env = testServices(answering());
    const registries: SessionRegistry[] = [];
    const nodes = [await startNode({ registry: () => registries[0] ?? null }), await startNode()];
    for (const node of nodes)
      registries.push(new SessionRegistry({ ...env.services, storage: node.storage, ownership: node.node }));
    const id = uuidv7();
    const inputId = uuidv7();
    const request = {
      ...testSessionRequest(id, env.workspace),
      firstInput: { id: inputId, intent: { kind: "message" as const, text: "Hi" }, source: unnamedSource },
    };
    const outcomes = await Promise.allSettled(registries.map((registry) => registry.create(request)));
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    const winner = outcomes.findIndex((outcome) => outcome.status === "fulfilled");
    const [owner, loser] = [nodes[winner]!, nodes[1 - winner]!];
    expect((outcomes[1 - winner] as PromiseRejectedResult).reason).toBeInstanceOf(SessionExistsError);
    expect(await owner.node.leaseOf(id)).toMatchObject({ node_id: owner.node.nodeId, epoch: 1 });
    expect(loser.node.holds(id)).toBe(false);
    expect(registries[1 - winner]!.loaded(id)).toBeUndefined();
    await eventually("the turn to complete", async () =>
      (await owner.storage.getReceipt(id, inputId))?.turn?.state === "completed" ? true : undefined,
    );
    const count = async (sql: string) => (await cluster.schema.query<{ n: number }>(sql, [id]))[0]!.n;
    expect(await count("SELECT count(*)::int AS n FROM sessions WHERE id = $1")).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM inputs WHERE session = $1")).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM turns WHERE session = $1")).toBe(1);
    for (const registry of registries) await registry.drain(1000);
  });
});
