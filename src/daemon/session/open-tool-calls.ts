/**
 * Tool calls without results. A provider rejects a history in which a tool call has no
 * result, so whenever a turn stops short (interrupt, failure, crash, fork at a call) each
 * open call gets an error result that says why it has none — and it is never run again.
 */
import { type Item, type ToolCallItem, type ToolResultItem, toolResult } from "../../model/items.js";
import { openToolCalls } from "../../model/open-tool-calls.js";

/** Why calls were left without results; the text is what the model reads. */
export type OpenCallReason = "interrupted" | "failed" | "daemon_restart" | "branch_checkpoint";

const reasonText: Record<OpenCallReason, string> = {
  interrupted: "Tool call interrupted by the user before it finished; its outcome is unknown.",
  failed: "Tool call not completed because the turn failed; its outcome is unknown.",
  daemon_restart:
    "The Skein daemon restarted while this tool call was in flight; its outcome is unknown. Check its effects before retrying.",
  branch_checkpoint: "not executed after branch checkpoint",
};

/** The result the log already implies for a call that has none (see call-outcomes.ts), or null. */
export type KnownResult = (call: ToolCallItem) => ToolResultItem | null;

/**
 * Error results closing every open call of `history` (but those `keepOpen` spares), in call
 * order: the result `known` gives a call whose outcome the log already tells (a denied call),
 * `reason`'s text for the others.
 */
export function closeOpenCalls(
  history: readonly Item[],
  reason: OpenCallReason,
  known: KnownResult = () => null,
  keepOpen: (call: ToolCallItem) => boolean = () => false,
): ToolResultItem[] {
  return openToolCalls(history)
    .filter((call) => !keepOpen(call))
    .map((call) => known(call) ?? toolResult(call.call_id, reasonText[reason], true));
}
