/**
 * Boot recovery on one node: every session with a turn left `running` by a crash, or with
 * queued inputs, is loaded; loading recovers the cut turn (SessionRegistry's load) and lets the
 * queue run. (A cluster node recovers by claiming sessions with work and no live owner instead.)
 *
 * Boundary rule: finds the sessions and loads them through the registry; nothing else.
 */
import type { SessionServices } from "../session/session-services.js";
import type { SessionRegistry } from "./session-registry.js";

/** Load every session that has work waiting; one that fails to load is logged, and the rest still load. */
export async function recoverSessions(
  registry: Pick<SessionRegistry, "get">,
  services: Pick<SessionServices, "storage" | "logger">,
): Promise<void> {
  const { storage, logger } = services;
  const sessions = new Set([
    ...(await storage.runningTurns()).map((turn) => turn.session),
    ...(await storage.sessionsWithPendingInputs()),
  ]);
  for (const session of sessions) {
    try {
      await registry.get(session);
    } catch (error) {
      logger.error({ session_id: session, err: error }, "could not load session at start");
    }
  }
}
