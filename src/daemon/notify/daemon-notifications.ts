/**
 * The daemon's webhooks, wired: the planner every session's commits ask which deliveries they
 * owe, and the deliverer of the outbox, poked once a commit that queued something is durable
 * (between pokes it sleeps until the next row is due, so retries and rows left by a crash are
 * found too, and at most `longestWaitMs`: a minute when this daemon is its database's only
 * writer, a second on a cluster where other nodes' rows may be left by a node that died).
 *
 * Boundary rule: wiring only.
 */
import type { NotificationTarget } from "../../home/notification-config.js";
import type { NotificationPlanner, SessionLogger } from "../session/session-services.js";
import type { SessionStorage } from "../storage/session-storage.js";
import { deliverySettingsFrom } from "./delivery-settings.js";
import { notificationPlanner } from "./notification-planner.js";
import { OutboxDeliverer } from "./outbox-deliverer.js";

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
  // Sessions whose commit in flight queued a delivery (poked when it is durable).
  const queued = new Set<string>();
  return {
    planner: (sessionId, entries, writes, now, toolOf) => {
      const rows = plan(sessionId, entries, writes, now, toolOf);
      if (rows.length > 0) queued.add(sessionId);
      return rows;
    },
    committed: (sessionId) => {
      if (queued.delete(sessionId)) deliverer.poke();
    },
    start: () => deliverer.start(),
    stop: () => deliverer.stop(),
  };
}
