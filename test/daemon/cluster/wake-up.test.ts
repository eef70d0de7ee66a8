/**
 * The cluster's wake-up connection (LISTEN) on the real PostgreSQL: when its backend ends (a
 * database restart, a terminated backend) the node opens it again, so a NOTIFY after that still
 * wakes it; it does not fall back to polling for good. The poll is an hour here: only a
 * notification can wake the node in time.
 */
import { v7 as uuidv7 } from "uuid";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClusterNode } from "../../../src/daemon/cluster/cluster-node.js";
import type { WakeUpConnection } from "../../../src/daemon/cluster/wake-up-connection.js";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { eventually } from "../../support/eventually.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { wakeUpsOn } from "./wake-ups-on.js";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const signer = HeadSigner.generate();

let schema: PgSchema;
const started: Array<{ node: ClusterNode; wakeUps: WakeUpConnection; storage: PgSessionStorage }> = [];

beforeEach(async () => {
  schema = await createPgSchema("skein_wake_up");
});

afterEach(async () => {
  for (const { node, wakeUps, storage } of started.splice(0)) {
    await node.stop();
    await wakeUps.stop();
    await storage.close();
  }
  await schema.drop();
});

async function startNode(name: string, adopted: string[]): Promise<ClusterNode> {
  const url = `${schema.url}&application_name=${name}`;
  const storage = new PgSessionStorage(await openPgDaemonDatabase(url, { max: 4 }), { signer });
  const node = new ClusterNode(storage.pool, {
    nodeId: uuidv7(),
    url: `http://127.0.0.1:${42000 + started.length}`,
    leaseMs: 60_000,
    pollMs: 3_600_000,
    signer,
    logger: quiet,
    adopt: async (sessionId) => {
      adopted.push(sessionId);
    },
    lost: () => {},
  });
  storage.fenceWith(node);
  const wakeUps = await wakeUpsOn(url);
  started.push({ node, wakeUps, storage });
  await node.start(wakeUps);
  return node;
}

/** The backend pids of the node's wake-up connection (found by its application name). */
async function listeners(name: string): Promise<number[]> {
  const rows = await schema.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'",
    [name],
  );
  return rows.map((row) => row.pid);
}

describe("the cluster's wake-up connection", () => {
  it("comes back after its backend is terminated, and a NOTIFY then wakes the node", async () => {
    const name = `${schema.name}_b`;
    const creatorAdopted: string[] = [];
    const adopted: string[] = [];
    const creator = await startNode(`${schema.name}_a`, creatorAdopted);
    await startNode(name, adopted);
    const [first] = await eventually("the node to listen", async () => {
      const pids = await listeners(name);
      return pids.length === 1 ? pids : undefined;
    });
    await schema.query("SELECT pg_terminate_backend($1)", [first]);
    const [second] = await eventually("the node to listen again", async () => {
      const pids = await listeners(name);
      return pids.length === 1 && pids[0] !== first ? pids : undefined;
    });
    expect(second).not.toBe(first);

    // A session with an input waiting and no live owner; then the wake-up.
    const storage = started[0]!.storage;
    await storage.createSession(
      { id: "s", workspace: "/tmp/work", createdAt: 1 },
      [{ kind: "session_start", ts: 1, system_prompt: null, config: {}, history: [] }],
      emptyPreview,
    );
    await storage.admitInput({
      session: "s",
      id: "i",
      kind: "message",
      intent: { text: "i" },
      acceptedAt: 1,
    });
    await creator.stop();
    await eventually("a node to claim the session", async () =>
      adopted.includes("s") || creatorAdopted.includes("s") ? true : undefined,
    );
    expect(adopted).toEqual(["s"]);
  });
});
