/**
 * What a session's budget check reads, for whatever makes a model request of it: a turn (before
 * each of its requests) and a manual compaction (before its summary requests). One definition, so
 * both check the same budgets against the same usage.
 *
 * Boundary rule: builds the source only; the check is budget/turn-budget-check.ts's.
 */
import type { TurnBudgetSource } from "../budget/turn-budget-check.js";
import type { SessionPort } from "../session/session-port.js";
import type { SessionServices } from "../session/session-services.js";
import type { SessionRow } from "../storage/sessions-table.js";

/** The budget source of `session` (its row), for requests made for schedule `scheduleId` (null: none). */
export function sessionBudgetSource(
  port: Pick<SessionPort, "sessionId" | "log" | "now">,
  services: Pick<SessionServices, "storage" | "turnSettings">,
  session: SessionRow,
  scheduleId: string | null,
): TurnBudgetSource {
  return {
    storage: services.storage,
    sessionId: port.sessionId,
    row: session,
    own: () => port.log.state.budget,
    config: () => services.turnSettings(session).budgets,
    lastUsage: () => port.log.state.last_request_usage,
    scheduleId,
    now: () => port.now(),
  };
}
