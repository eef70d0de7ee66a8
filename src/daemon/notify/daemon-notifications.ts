/**
 * The daemon's webhooks, wired: the planner every session's commits ask which deliveries they
 * owe, and the deliverer of the outbox, poked once a commit that queued something is durable, or
 * 2 s after it queued them when no durable commit said so (a commit whose outcome was unknown may
 * have landed them). Between pokes it sleeps until the next row is due, so retries and rows left
 * by a crash are found too, and at most `longestWaitMs`: a minute when this daemon is its
 * database's only writer, a second on a cluster where other nodes' rows may be left by a node
 * that died.
 *
 * Boundary rule: wiring only.
 */
import type { NotificationTarget } from "../../home/notification-config.js";
import type { NotificationPlanner, SessionLogger } from "../session/session-services.js";
import type { SessionStorage } from "../storage/session-storage.js";
import { deliverySettingsFrom } from "./delivery-settings.js";
import { notificationPlanner } from "./notification-planner.js";
import { OutboxDeliverer } from "./outbox-deliverer.js";

/** How long after a commit queued deliveries the outbox looks anyway, when no durable commit said so. */
const unsettledPokeMs = 2_000;

/** The daemon's webhooks (see the module's doc). */
export interface DaemonNotifications {
  planner: NotificationPlanner;
  /** A session's commit is durable (its `committed` event): deliver what it queued now. */
  committed(sessionId: string): void;
  start(): void;
  /** Stop delivering (the round under way settles first). */
  stop(): Promise<void>;
}

/**
 * Webhooks for config.json's `notifications` as `targets` reads them now (`taskTool`: the name of
 * the tool whose results end subagent tasks); throws DeliverySettingError.
 */
export function daemonNotifications(
  storage: SessionStorage,
  targets: () => readonly NotificationTarget[],
  env: NodeJS.ProcessEnv,
  logger: SessionLogger,
  options: { taskTool: string; longestWaitMs: number },
): DaemonNotifications {
  const settings = deliverySettingsFrom(env);
  const deliverer = new OutboxDeliverer(storage.outbox, targets, settings, logger, options.longestWaitMs);
  const taskTool = options.taskTool;
  const plan = notificationPlanner(targets, taskTool);
  // Sessions whose commit in flight queued a delivery: poked when it is durable, or after
  // `unsettledPokeMs` when no durable commit said so: a commit that failed with an unknown
  // outcome (a lost connection at COMMIT, an I/O error) may have landed its rows all the same,
  // and they would otherwise wait for the longest wait.
  const queued = new Map<string, NodeJS.Timeout>();
  return {
    planner: (sessionId, entries, writes, now, toolOf) => {
      const rows = plan(sessionId, entries, writes, now, toolOf);
      if (rows.length > 0 && !queued.has(sessionId)) {
        const timer = setTimeout(() => {
          queued.delete(sessionId);
          deliverer.poke();
        }, unsettledPokeMs);
        timer.unref();
        queued.set(sessionId, timer);
      }
      return rows;
    },
    committed: (sessionId) => {
      const timer = queued.get(sessionId);
      if (timer === undefined) return;
      clearTimeout(timer);
      queued.delete(sessionId);
      deliverer.poke();
    },
    start: () => deliverer.start(),
    stop: () => {
      for (const timer of queued.values()) clearTimeout(timer);
      queued.clear();
      return deliverer.stop();
    },
  };
}
