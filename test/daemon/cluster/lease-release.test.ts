/**
 * A node that gives a session up and claims it again at once (a load that failed, then the next
 * request for the session) on the real PostgreSQL: the release is sent on one pooled connection
 * and the claim on another, so without care the claim can read the lease while the release is
 * still on its way, find it live and this node's, and then see it end: the request was answered
 * "owned elsewhere" (503) by the only node there is, or the node kept an epoch whose lease had
 * just been given up.
 */
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { ClusterNode } from "../../../src/daemon/cluster/cluster-node.js";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { quiet, type StartedNode, start, ts, withNodesOnFreshSchema } from "./nodes-on-schema.js";
import { wakeUpsOn } from "./wake-ups-on.js";

const cluster = withNodesOnFreshSchema<StartedNode>("skein_release");

async function startNode(): Promise<StartedNode> {
  const signer = HeadSigner.generate();
  const storage = new PgSessionStorage(await openPgDaemonDatabase(cluster.schema.url, { max: 4 }), {
    signer,
  });
  const node = new ClusterNode(storage.pool, {
    nodeId: uuidv7(),
    url: "http://127.0.0.1:40100",
    leaseMs: 60_000,
    signer,
    logger: quiet,
    adopt: async () => {},
    lost: () => {},
  });
  const started = { storage, node, wakeUps: await wakeUpsOn(cluster.schema.url) };
  cluster.nodes.push(started);
  await node.start(started.wakeUps);
  return started;
}

describe("a lease released and claimed again at once", () => {
  it("is claimed under a new live epoch every time, never refused as another node's", async () => {
    const { storage, node } = await startNode();
    await storage.createSession({ id: "s", workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
    let epoch = await node.acquire("s");
    for (let round = 0; round < 40; round++) {
      // Not awaited, as a failed load releases; the next request claims straight after.
      void node.release("s");
      const claimed = await node.acquire("s");
      expect(claimed).toBe(epoch + 1);
      expect(await node.leaseOf("s")).toMatchObject({ node_id: node.nodeId, epoch: claimed, live: true });
      expect(node.heldEpoch("s")).toBe(claimed);
      epoch = claimed;
    }
  });
});
