/**
 * What the transcript says when a turn ends for a reason besides its answer: the cap of tool
 * rounds, or a budget used up.
 *
 * Boundary rule: text only; the view decides where it goes.
 */
import type { SessionEventData } from "../../api/session-events.js";

/** The notice for a turn that ended with `outcome`, or null when its answer says it all. */
export function outcomeNotice(outcome: SessionEventData["turn_completed"]["outcome"]): string | null {
  switch (outcome) {
    case "limit_reached":
      return "(the turn stopped at its limit of tool rounds; send a message to go on)";
    case "budget_exhausted":
      return "(BUDGET EXHAUSTED: the turn stopped before its next model request; see `skein budget show`, raise it, then send a message to go on)";
    default:
      return null;
  }
}
