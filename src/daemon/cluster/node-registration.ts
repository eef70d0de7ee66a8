/**
 * A node's registration in `nodes`, and what it does about other nodes registered at the same
 * address (SKEIN_NODE_URL).
 *
 * Boundary rule: one address, one live node. Other nodes relay a session's requests to its
 * owner's address, so two live nodes at one address (the default URL on two machines with the
 * same port) would receive each other's relays; and marking the older one stopped would free
 * its sessions while it runs them. So an earlier registration at this address is marked stopped
 * only when it is known gone: it is this home's previous incarnation (named in the daemon.json
 * it left; this process holds the home's lock now), or its heartbeat does not move for a whole
 * lease. One whose heartbeat moves is alive, and this start is refused.
 */
import type pg from "pg";
import type { SessionLogger } from "../session/session-services.js";
import { runPg } from "../storage/pg-runner.js";
import {
  heartbeatProgram,
  nodeGoneProgram,
  nodesAtUrlProgram,
  registerNodeProgram,
} from "./lease-programs.js";

/** Another live node is registered at this node's address: the node must not start. */
export class NodeUrlTakenError extends Error {
  constructor(
    readonly url: string,
    readonly other: { id: string; pid: number; startedAt: number },
  ) {
    super(
      `SKEIN_NODE_URL ${url} is already the address of live node ${other.id} (pid ${other.pid}, started ` +
        `${new Date(other.startedAt).toISOString()}): two nodes cannot share one address, since the others ` +
        "relay each session's requests to its owner's address. Give each node the URL the other nodes reach it at " +
        "(SKEIN_NODE_URL, e.g. http://<this machine's address>:<port>)",
    );
    this.name = "NodeUrlTakenError";
  }
}

/** What registration needs to know about this node. */
export interface NodeRegistration {
  id: string;
  url: string;
  pid: number;
  publicKey: string;
  leaseMs: number;
  /** The instance id in the daemon.json this home's previous daemon left (it is gone: we hold the lock). */
  previousIncarnation: string | null;
  logger: SessionLogger;
}

/**
 * Register the node, then settle every other registration at its address: gone ones are
 * marked stopped (their sessions are free at once), a live one refuses the start with
 * `NodeUrlTakenError`. Waits at most one lease, and only when another registration's
 * heartbeat is recent; this node heartbeats meanwhile.
 */
export async function registerNode(pool: pg.Pool, node: NodeRegistration): Promise<void> {
  await runPg(pool, registerNodeProgram(node));
  const firstSeen = new Map<string, number>();
  const pollMs = Math.max(50, Math.min(500, Math.floor(node.leaseMs / 6)));
  for (;;) {
    const others = await runPg(pool, nodesAtUrlProgram(node.url, node.id));
    // One that stopped meanwhile (or was marked so by another node) is settled.
    for (const id of [...firstSeen.keys()])
      if (!others.some((other) => other.id === id)) firstSeen.delete(id);
    for (const other of others) {
      const seen = firstSeen.get(other.id);
      if (seen !== undefined && other.heartbeat_at > seen) {
        node.logger.error(
          { node: other.id, url: node.url },
          "another live node has this node's URL; refusing to start",
        );
        throw new NodeUrlTakenError(node.url, { id: other.id, pid: other.pid, startedAt: other.started_at });
      }
      const previous = other.id === node.previousIncarnation;
      const silentMs = other.now - other.heartbeat_at;
      if (previous || silentMs >= node.leaseMs) {
        if (await runPg(pool, nodeGoneProgram(other.id))) {
          node.logger.warn(
            { node: other.id, url: node.url, silentMs },
            previous
              ? "this home's previous daemon (gone, it left daemon.json) was registered at this URL; marked stopped, its sessions are free"
              : "a node registered at this URL has not heartbeaten for a lease; marked stopped, its sessions are free",
          );
        }
        firstSeen.delete(other.id);
        continue;
      }
      if (seen === undefined) {
        firstSeen.set(other.id, other.heartbeat_at);
        node.logger.warn(
          { node: other.id, url: node.url, silentMs },
          "another node is registered at this node's URL with a recent heartbeat; waiting up to a lease to see whether it is alive",
        );
      }
    }
    if (firstSeen.size === 0) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    await runPg(pool, heartbeatProgram(node.id));
  }
}
