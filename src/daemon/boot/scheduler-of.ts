/** The scheduler of a daemon: fires the schedules in its database (every node runs one). */
import type { SessionRegistry } from "../actor/session-registry.js";
import { SessionOwnedElsewhereError } from "../cluster/session-owned-elsewhere.js";
import type { RouteServices } from "../routes/route-services.js";
import { createNewSession } from "../routes/session-creation-route.js";
import { Scheduler } from "../schedule/scheduler.js";
import type { DaemonParts } from "./daemon-services.js";
import { longestSleepMs } from "./longest-sleep.js";

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
    pollMs: longestSleepMs(parts.cluster),
  });
}
