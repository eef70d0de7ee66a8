/**
 * The cluster's write fence on the real PostgreSQL: two nodes (each its own pool, storage and
 * `ClusterNode`) on one schema. A node whose lease on a session another node took commits
 * nothing more for it, whatever the write; the fence is queried once per session and group
 * commit, not once per write, and that saving never lets a write through that the fence would
 * have refused.
 */

import type pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { SessionRegistry } from "../../../src/daemon/actor/session-registry.js";
import { ClusterNode } from "../../../src/daemon/cluster/cluster-node.js";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import { type WriteFence, WriteFencedError } from "../../../src/daemon/storage/session-storage.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { textBlockStart, textBlockStop, textDelta } from "../../../src/model/events.js";
import { userMessage } from "../../../src/model/items.js";
import { unnamedSource } from "../../support/input-source.js";
import { MockLlmClient } from "../../support/mock-llm-client.js";
import { createTestSession, testServices } from "../session/session-services.js";
import { quiet, type StartedNode, start, ts, withNodesOnFreshSchema } from "./nodes-on-schema.js";
import { wakeUpsOn } from "./wake-ups-on.js";

/** The real fence of a node, counting the fence queries it runs. */
class CountingFence implements WriteFence<pg.PoolClient> {
  checks = 0;
  constructor(readonly node: ClusterNode) {}

  check(client: pg.PoolClient, sessionId: string, epoch?: number): Promise<void> {
    this.checks++;
    return this.node.check(client, sessionId, epoch);
  }

  created(client: pg.PoolClient, sessionId: string): Promise<number> {
    return this.node.created(client, sessionId);
  }

  heldEpoch(sessionId: string): number | undefined {
    return this.node.heldEpoch(sessionId);
  }
}

interface Node extends StartedNode {
  fence: CountingFence;
  /** Sessions this node was told it lost. */
  lost: string[];
}

const cluster = withNodesOnFreshSchema<Node>("skein_fence");

/** A node on the schema, started as the daemon starts one (a long lease: no renewal interferes). */
async function startNode(): Promise<Node> {
  const signer = HeadSigner.generate();
  const storage = new PgSessionStorage(await openPgDaemonDatabase(cluster.schema.url, { max: 4 }), {
    signer,
  });
  const lost: string[] = [];
  const node = new ClusterNode(storage.pool, {
    nodeId: uuidv7(),
    url: `http://127.0.0.1:${40000 + cluster.nodes.length}`,
    leaseMs: 60_000,
    signer,
    logger: quiet,
    adopt: async () => {},
    lost: (sessionId) => {
      lost.push(sessionId);
    },
  });
  const fence = new CountingFence(node);
  storage.fenceWith(fence);
  const started = { storage, node, fence, lost, wakeUps: await wakeUpsOn(cluster.schema.url) };
  cluster.nodes.push(started);
  await node.start(started.wakeUps);
  return started;
}

async function createSession(node: Node, id: string): Promise<void> {
  await node.storage.createSession({ id, workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
}

/** Admit an input and start a turn delivering it (its entry, receipt and turn row in one append). */
async function startTurn(node: Node, sessionId: string, inputId: string, turnId: string): Promise<void> {
  await node.storage.admitInput({
    session: sessionId,
    id: inputId,
    kind: "message",
    intent: { text: inputId },
    acceptedAt: ts,
  });
  const writer = node.storage.writerFrom(sessionId, await node.storage.readLog(sessionId));
  await writer.append(
    [{ kind: "user_input", ts, item: userMessage(inputId), turn_id: turnId, input_id: inputId }],
    {
      startTurn: { id: turnId, inputIds: [inputId], startedAt: ts },
      committedInputs: { turnId, inputs: [{ id: inputId, transcriptPosition: writer.position + 1 }] },
    },
  );
}

/** Node A paused past its lease: the lease expired and node B took the session (a new epoch). */
async function takeOver(from: Node, to: Node, sessionId: string): Promise<void> {
  expect(from.node.holds(sessionId)).toBe(true);
  await cluster.schema.query("UPDATE session_leases SET expires_at = 0 WHERE session = $1", [sessionId]);
  await to.node.acquire(sessionId);
  expect((await to.node.leaseOf(sessionId))?.epoch).toBe(2);
}

/** What a fenced write must not change: the session's row, its turns, its inputs and its log. */
async function rowsOf(sessionId: string): Promise<unknown[]> {
  return [
    await cluster.schema.query("SELECT * FROM sessions WHERE id = $1", [sessionId]),
    await cluster.schema.query("SELECT * FROM turns WHERE session = $1 ORDER BY id", [sessionId]),
    await cluster.schema.query("SELECT * FROM inputs WHERE session = $1 ORDER BY id", [sessionId]),
    await cluster.schema.query("SELECT position, hash FROM transcript WHERE session = $1 ORDER BY position", [
      sessionId,
    ]),
  ];
}

describe("the write fence of a cluster node", () => {
  it("refuses a repaired preview and a failed turn from a node whose lease was taken, and changes nothing", async () => {
    const [a, b] = [await startNode(), await startNode()];
    await createSession(a!, "s");
    await startTurn(a!, "s", "i1", "t1");
    await takeOver(a!, b!, "s");
    const before = await rowsOf("s");

    const preview = { text: "stale preview", truncated: false, transcript_count: 9 };
    await expect(a!.storage.setPreview("s", preview)).rejects.toBeInstanceOf(WriteFencedError);
    await expect(a!.storage.failTurn("s", "t1", ts + 1, "the old owner crashed")).rejects.toBeInstanceOf(
      WriteFencedError,
    );

    expect(await rowsOf("s")).toEqual(before);
    expect(a!.lost).toEqual(["s"]);
    // The new owner's writes pass the same fence.
    await b!.storage.setPreview("s", preview);
    await b!.storage.failTurn("s", "t1", ts + 2, "recovered");
    expect((await b!.storage.getSession("s"))?.preview.text).toBe("stale preview");
    expect((await b!.storage.runningTurnOf("s"))?.id).toBeUndefined();
  });

  it("refuses every other write of the session from the old owner too", async () => {
    const [a, b] = [await startNode(), await startNode()];
    await createSession(a!, "s");
    await startTurn(a!, "s", "i1", "t1");
    await a!.storage.admitInput({
      session: "s",
      id: "i2",
      kind: "message",
      intent: { text: "2" },
      acceptedAt: ts,
    });
    const writer = a!.storage.writerFrom("s", await a!.storage.readLog("s"));
    await takeOver(a!, b!, "s");
    const before = await rowsOf("s");

    const writes: Array<[string, () => Promise<unknown>]> = [
      ["append", () => writer.append([{ kind: "turn_end", ts, turn_count: 1 }], { activityAt: ts + 5 })],
      ["writeRows", () => a!.storage.writeRows("s", { activityAt: ts + 5 })],
      [
        "admitInput",
        () =>
          a!.storage.admitInput({
            session: "s",
            id: "i3",
            kind: "message",
            intent: { text: "3" },
            acceptedAt: ts,
          }),
      ],
      ["cancelInput", () => a!.storage.cancelInput("s", "i2")],
      ["cancelInputsThrough", () => a!.storage.cancelInputsThrough("s", 10)],
      ["deleteSession", () => a!.storage.deleteSession("s")],
    ];
    for (const [name, write] of writes) {
      await expect(write(), name).rejects.toBeInstanceOf(WriteFencedError);
    }
    expect(await rowsOf("s")).toEqual(before);
  });

  it("queries the fence once per session for the writes that share a group commit", async () => {
    const [a] = [await startNode()];
    for (const id of ["s1", "s2"]) await createSession(a!, id);
    const stats = a!.storage.commitStats();
    a!.fence.checks = 0;

    const admit = (session: string, id: string) =>
      a!.storage.admitInput({ session, id, kind: "message", intent: { text: id }, acceptedAt: ts });
    await Promise.all([
      admit("s1", "a"),
      admit("s1", "b"),
      a!.storage.writeRows("s1", { activityAt: ts + 1 }),
      a!.storage.setPreview("s1", { text: "p", truncated: false, transcript_count: 1 }),
      admit("s2", "c"),
      a!.storage.cancelInput("s2", "c"),
    ]);

    expect(a!.storage.commitStats().transactions - stats.transactions).toBe(1);
    expect(a!.fence.checks).toBe(2);
  });

  it("queries the fence again after a write of the session was rolled back to its savepoint", async () => {
    const [a] = [await startNode()];
    await createSession(a!, "s");
    a!.fence.checks = 0;

    const [failed, admitted] = await Promise.allSettled([
      // Passes the fence, then fails: its savepoint, and the lease's share lock with it, are rolled back.
      a!.storage.writeRows("s", {
        endTurn: { id: "no-such-turn", state: "completed", endedAt: ts, error: null },
      }),
      a!.storage.admitInput({
        session: "s",
        id: "i",
        kind: "message",
        intent: { text: "i" },
        acceptedAt: ts,
      }),
    ]);

    expect(failed.status).toBe("rejected");
    expect(admitted.status).toBe("fulfilled");
    expect(a!.fence.checks).toBe(2);
  });

  it("refuses a write queued behind the session's deletion in the same group commit", async () => {
    const [a] = [await startNode()];
    for (const id of ["gone", "kept"]) await createSession(a!, id);
    const stats = a!.storage.commitStats();

    const [deleted, late, other] = await Promise.allSettled([
      a!.storage.deleteSession("gone"),
      a!.storage.writeRows("gone", { startTurn: { id: "t", inputIds: [], startedAt: ts } }),
      a!.storage.admitInput({
        session: "kept",
        id: "i",
        kind: "message",
        intent: { text: "i" },
        acceptedAt: ts,
      }),
    ]);

    expect(a!.storage.commitStats().transactions - stats.transactions).toBe(1);
    expect(deleted.status).toBe("fulfilled");
    expect(late.status === "rejected" && late.reason).toBeInstanceOf(WriteFencedError);
    expect(other.status).toBe("fulfilled");
    expect(await cluster.schema.query("SELECT * FROM turns")).toEqual([]);
  });

  it("runs a plain turn with one fence query per group commit", async () => {
    const [a] = [await startNode()];
    const env = testServices(
      () => new MockLlmClient([textBlockStart(0), textDelta(0, "hi"), textBlockStop(0)]),
    );
    try {
      const registry = new SessionRegistry({ ...env.services, storage: a!.storage, ownership: a!.node });
      const id = await createTestSession(registry, env.workspace);
      const actor = await registry.get(id);
      const stats = a!.storage.commitStats();
      a!.fence.checks = 0;
      const inputId = uuidv7();
      await actor.submit(inputId, { kind: "message", text: "Hi" }, unnamedSource);
      for (
        let i = 0;
        i < 400 && (await a!.storage.getReceipt(id, inputId))?.turn?.state !== "completed";
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect((await a!.storage.getReceipt(id, inputId))?.turn?.state).toBe("completed");
      // Stopping the actor waits for its last writes: nothing is in flight while counting.
      await registry.drain(1000);
      const writes = a!.storage.commitStats().requests - stats.requests;
      const transactions = a!.storage.commitStats().transactions - stats.transactions;
      // A plain turn awaits each write, so each is its own transaction: one fence query each.
      expect(writes).toBeGreaterThanOrEqual(transactions);
      expect(a!.fence.checks).toBe(transactions);
    } finally {
      await env.cleanup();
    }
  });
});
