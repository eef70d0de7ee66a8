/** What `skein run`'s waiting line says the turn waits for, from the last event seen. */
import type { SessionEvent } from "../../api/session-events.js";

/** What the waiting line says after `event`: a running tool, or the model. */
export function waitingLabel(event: SessionEvent): string | undefined {
  if (event.type === "tool")
    return event.data.result === null ? `running ${event.data.name}` : "waiting for the model";
  if (event.type === "compaction_started") return "compacting the context";
  if (event.type === "approval_requested") return "waiting for an approval";
  if (event.type === "turn_completed" || event.type === "compaction_completed")
    return "waiting for the model";
  return undefined;
}
