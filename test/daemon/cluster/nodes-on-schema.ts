/**
 * Cluster nodes on the real PostgreSQL for the cluster tests: a fresh schema for each test, and
 * the nodes (each its own storage and `ClusterNode`) a test starts on it, stopped and closed
 * after the test before the schema is dropped; and what the tests' sessions start with.
 */
import type { ClusterNode } from "../../../src/daemon/cluster/cluster-node.js";
import type { WakeUpConnection } from "../../../src/daemon/cluster/wake-up-connection.js";
import type { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { startedForEachTest } from "../../support/started-for-describe.js";

/** The time the tests' entries carry. */
export const ts = Date.parse("2025-05-06T07:08:09.010Z");
/** The first entry of a test session's log. */
export const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };
/** A logger that says nothing (the tests read outcomes, not log lines). */
export const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** What the fixture stops after each test; a test's own node type adds what it records. */
export interface StartedNode {
  storage: PgSessionStorage;
  node: ClusterNode;
  /** Its wake-up connection, once started (stopped after the node). */
  wakeUps?: WakeUpConnection;
}

/**
 * A schema named from `prefix` for each test, and the list the test pushes its nodes on;
 * `afterNodes` runs once the nodes stopped, before the schema is dropped.
 */
export function withNodesOnFreshSchema<N extends StartedNode>(
  prefix: string,
  afterNodes: () => Promise<void> = async () => {},
): { readonly schema: PgSchema; readonly nodes: N[] } {
  return startedForEachTest(
    async () => ({ schema: await createPgSchema(prefix), nodes: [] as N[] }),
    async ({ schema, nodes }) => {
      for (const { node, wakeUps, storage } of nodes) {
        await node.stop();
        await wakeUps?.stop();
        await storage.close();
      }
      await afterNodes();
      await schema.drop();
    },
  );
}
