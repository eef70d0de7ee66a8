/**
 * How long the daemon's table-watching loops (the scheduler, the outbox's deliverer) may sleep
 * between two looks at their table when nothing wakes them.
 *
 * Why: a daemon that is its database's only writer (SQLite) knows of every change it makes and
 * wakes its loops itself, so the bound only limits how late a jump of the wall clock is noticed;
 * an idle daemon then reads its database about once a minute instead of three times a second.
 * On a cluster other nodes write the same tables. A schedule's change is NOTIFYed at its commit
 * and a node's scheduler LISTENs (and looks once after its wake-up connection comes back), so
 * its bound only covers a notification lost without the connection noticing (a half-open TCP
 * connection): 5 s, so that even then a firing is at most 5 s late, inside the 10 s after which
 * it counts as missed. The outbox's rows become due on a node through time alone (the claims and
 * unclaimed rows of a node that died), with no writer left to announce them, so its deliverer
 * keeps looking every second.
 */
import type { ClusterNode } from "../cluster/cluster-node.js";

/** The longest sleep of a daemon that is its database's only writer. */
const aloneSleepMs = 60_000;

/** The longest sleep of a cluster node's scheduler (woken by NOTIFY; see above). */
const clusterSchedulerSleepMs = 5_000;

/** The longest sleep of a cluster node's outbox deliverer. */
const clusterOutboxSleepMs = 1_000;

/** The longest sleep between two looks at the schedules, for a daemon in `cluster` (null: alone). */
export function schedulerSleepMs(cluster: ClusterNode | null): number {
  return cluster === null ? aloneSleepMs : clusterSchedulerSleepMs;
}

/** The longest sleep between two looks at the notification outbox, for a daemon in `cluster`. */
export function outboxSleepMs(cluster: ClusterNode | null): number {
  return cluster === null ? aloneSleepMs : clusterOutboxSleepMs;
}
