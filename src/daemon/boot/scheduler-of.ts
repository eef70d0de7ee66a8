/** The scheduler of a daemon: fires the schedules in its database (every node runs one). */
import type { SessionRegistry } from "../actor/session-registry.js";
import { SessionOwnedElsewhereError } from "../cluster/session-owned-elsewhere.js";
import type { WakeUpSubscription } from "../cluster/wake-up-connection.js";
import type { RouteServices } from "../routes/route-services.js";
import { createNewSession } from "../routes/session-creation-route.js";
import { Scheduler } from "../schedule/scheduler.js";
import { schedulesChannel } from "../storage/schedules-table.js";
import type { DaemonParts } from "./daemon-services.js";
import { schedulerSleepMs } from "./longest-sleep.js";

/** The scheduler (started once the daemon listens); a firing into a new session creates it as `PUT /sessions/{id}` would. */
export function schedulerOf(
  parts: DaemonParts,
  sessions: SessionRegistry,
  services: RouteServices,
): Scheduler {
  return new Scheduler({
    storage: parts.storage,
    registry: sessions,
    logger: parts.logger,
    now: parts.now,
    createSession: (id, spec) =>
      createNewSession(services, id, {
        kind: "new",
        workspace: spec.workspace,
        ...(spec.profile === null ? {} : { provider_profile: spec.profile }),
      }),
    ownedElsewhere: (error) => error instanceof SessionOwnedElsewhereError,
    pollMs: schedulerSleepMs(parts.cluster),
  });
}

/**
 * On a cluster, the scheduler's wake-ups, heard on the node's wake-up connection (null on
 * SQLite): every node's schedule changes are NOTIFYed at commit (schedules-table.ts), and each
 * wakes `scheduler`, as does the connection's coming back after a loss (what was announced
 * meanwhile is lost, the look finds it). Subscribe before the scheduler starts, whose first tick
 * reads the table anyway.
 */
export async function scheduleWakeUpsOf(
  parts: DaemonParts,
  scheduler: Scheduler,
): Promise<WakeUpSubscription | null> {
  if (parts.wakeUps === null) return null;
  return parts.wakeUps.subscribe(schedulesChannel, () => scheduler.wake());
}
