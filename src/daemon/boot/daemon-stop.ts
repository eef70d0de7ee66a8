/** The daemon's one way down: drain the sessions, hand them off, close everything, once. */
import type pino from "pino";
import type { SessionRegistry } from "../actor/session-registry.js";
import type { ClusterNode } from "../cluster/cluster-node.js";
import type { Relays } from "../cluster/request-forwarding.js";
import { closeListener } from "../http/close-listener.js";
import type { HttpApp } from "../http/create-http-app.js";
import { removeDiscoveryFile } from "../process/discovery-file.js";
import type { DrainController } from "../process/drain.js";
import type { HomeLock } from "../process/home-lock.js";
import type { SessionStorage } from "../storage/session-storage.js";
import type { Tooling } from "./start-tooling.js";

/** What is stopped, in the order it stops. */
export interface StoppableParts {
  home: string;
  instanceId: string;
  drain: DrainController;
  /** The relays of forwarded requests, once registered (null off a cluster). */
  relays(): Relays | null;
  cluster: ClusterNode | null;
  sessions: SessionRegistry;
  tooling: Tooling;
  app: HttpApp;
  storage: SessionStorage;
  lock: HomeLock;
  logger: pino.Logger;
}

/** The daemon's stop: `shutdown` (idempotent: every call gets the one drain) and `stopped`. */
export interface DaemonStop {
  shutdown(timeoutMs: number): Promise<void>;
  stopped: Promise<void>;
}

/** The stop of a daemon made of `parts`. */
export function daemonStop(parts: StoppableParts): DaemonStop {
  const { cluster, sessions, logger } = parts;
  let stoppedResolve: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stoppedResolve = resolve;
  });
  let shuttingDown: Promise<void> | null = null;
  const shutdown = (timeoutMs: number): Promise<void> => {
    shuttingDown ??= (async () => {
      logger.info({ timeoutMs }, "draining");
      void parts.drain.begin(timeoutMs);
      // Streams relayed through this node end now: their clients resume on another node.
      parts.relays()?.closeAll();
      // Another live node recovers a cut turn at once: wait only for tools that are running.
      const handOff = cluster !== null && (await cluster.othersLive().catch(() => false));
      await sessions.drain(timeoutMs, { handOff });
      // Hand the sessions off at once: released leases, and a wake-up for the other nodes.
      await cluster?.stop();
      await parts.tooling.mcp.stop();
      await closeListener(parts.app);
      await removeDiscoveryFile(parts.home, { pid: process.pid, instance_id: parts.instanceId }).catch(
        () => undefined,
      );
      const commits = parts.storage.commitStats();
      await parts.storage.close();
      parts.lock.release();
      logger.info({ groupCommit: commits }, "stopped");
      stoppedResolve();
    })();
    return shuttingDown;
  };
  return { shutdown, stopped };
}
