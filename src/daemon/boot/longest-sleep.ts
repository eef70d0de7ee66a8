/**
 * How long the daemon's table-watching loops (the scheduler, the outbox's deliverer) may sleep
 * between two looks at their table when nothing local wakes them.
 *
 * Why: a daemon that is its database's only writer (SQLite) knows of every change it makes and
 * wakes its loops itself, so the bound only limits how late a jump of the wall clock is noticed;
 * an idle daemon then reads its database about once a minute instead of three times a second.
 * On a cluster other nodes write the same tables (a schedule due in two seconds, the rows of a
 * node that died before delivering them), so the loops keep looking every second.
 */
import type { ClusterNode } from "../cluster/cluster-node.js";

/** The longest sleep of a daemon that is its database's only writer. */
const aloneSleepMs = 60_000;

/** The longest sleep of a cluster node. */
const clusterSleepMs = 1_000;

/** The longest sleep between two looks at a table, for a daemon in `cluster` (null: alone). */
export function longestSleepMs(cluster: ClusterNode | null): number {
  return cluster === null ? aloneSleepMs : clusterSleepMs;
}
