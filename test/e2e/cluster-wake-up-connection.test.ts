/**
 * A cluster node's wake-ups (other nodes' hand-offs, shared config changes, turn ends of tasks,
 * schedule changes) all arrive on one PostgreSQL connection: PostgreSQL's max_connections
 * bounds the cluster's size by the pools, not by one LISTEN connection per channel.
 */
import { describe, expect, it } from "vitest";
import { useTestClusters } from "./support/cluster-scope.js";

describe("a cluster node's wake-up connection", () => {
  const clusters = useTestClusters();

  it("is the node's only connection that LISTENs", async () => {
    const cluster = clusters.cluster();
    const named = (index: number) => `${cluster.schema.name}_${index}`;
    await cluster.start(2, 2, (index) => ({
      env: { SKEIN_DB: `${cluster.schema.url}&application_name=${named(index)}` },
    }));
    for (const index of [0, 1]) {
      const rows = await cluster.schema.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'",
        [named(index)],
      );
      expect(rows[0]!.n).toBe(1);
    }
  }, 60_000);
});
