/** The daemon's one way down: drain the sessions, hand them off, close everything, once. */
import type { SessionRegistry } from "../actor/session-registry.js";
import type { SessionRetention } from "../actor/session-retention.js";
import type { Relays } from "../cluster/request-forwarding.js";
import { closeListener } from "../http/close-listener.js";
import type { HttpApp } from "../http/create-http-app.js";
import type { DaemonMetrics } from "../process/daemon-metrics.js";
import { removeDiscoveryFile } from "../process/discovery-file.js";
import type { HomeLock } from "../process/home-lock.js";
import type { Scheduler } from "../schedule/scheduler.js";
import type { DaemonParts } from "./daemon-services.js";

/** What is stopped besides the daemon's parts. */
export interface StoppableServing {
  instanceId: string;
  /** The relays of forwarded requests, once registered (null off a cluster). */
  relays(): Relays | null;
  /** The scheduler (it stops firing before the sessions drain). */
  scheduler: Scheduler;
  sessions: SessionRegistry;
  /** Its background runs stop before the sessions drain (a run under way finishes first). */
  retention: SessionRetention;
  app: HttpApp;
  lock: HomeLock;
  /** The metrics, exported once more at the end when they are pushed. */
  metrics: DaemonMetrics;
  /** The cross-node wake-ups of waiting task calls (null off a cluster): they stop being heard. */
  taskWakeUps: { stop(): void } | null;
  /** The scheduler's wake-ups (null off a cluster): they stop being heard once the scheduler stopped. */
  scheduleWakeUps: { unsubscribe(): void } | null;
}

/** The daemon's stop: `shutdown` (idempotent: every call gets the one drain) and `stopped`. */
export interface DaemonStop {
  shutdown(timeoutMs: number): Promise<void>;
  stopped: Promise<void>;
}

/** The stop of a daemon made of `parts`, serving with `serving`. */
export function daemonStop(parts: DaemonParts, serving: StoppableServing): DaemonStop {
  const { cluster, logger } = parts;
  const { sessions } = serving;
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
      serving.relays()?.closeAll();
      await serving.scheduler.stop();
      serving.scheduleWakeUps?.unsubscribe();
      // Another live node recovers a cut turn at once: wait only for tools that are running.
      await serving.retention.stop();
      const handOff = cluster !== null && (await cluster.othersLive().catch(() => false));
      await sessions.drain(timeoutMs, { handOff });
      // The drained sessions' last events are queued; what is not delivered now is after a restart.
      await parts.notifications.stop();
      // Hand the sessions off at once: released leases, and a wake-up for the other nodes.
      await cluster?.stop();
      serving.taskWakeUps?.stop();
      parts.sharedConfig?.stop();
      // Every subscriber above is gone: the node's wake-up connection ends.
      await parts.wakeUps?.stop();
      // Stop accepting and cut the streams before stopping the MCP servers, which may take
      // seconds: a client whose stream ended reconnects at once, and a listener still open
      // then would take it in and the close would wait on it.
      await closeListener(serving.app);
      await parts.tooling.mcp.stop();
      await removeDiscoveryFile(parts.settings.home, {
        pid: process.pid,
        instance_id: serving.instanceId,
      }).catch(() => undefined);
      const commits = parts.storage.commitStats();
      await parts.storage.close();
      serving.lock.release();
      // The spans of the last turns, and the last counts, go out before the process exits.
      await parts.tracing?.shutdown();
      await serving.metrics.stop();
      logger.info({ groupCommit: commits }, "stopped");
      stoppedResolve();
    })();
    return shuttingDown;
  };
  return { shutdown, stopped };
}
