/**
 * Tool calls without results. A provider rejects a history in which a tool call has no
 * result, so whenever a turn stops short (interrupt, failure, crash, fork at a call) each
 * open call gets an error result that says why it has none — and it is never run again.
 */
import { type Item, type ToolCallItem, type ToolResultItem, toolResult } from "../../model/items.js";

/** Why calls were left without results; the text is what the model reads. */
export type OpenCallReason = "interrupted" | "failed" | "daemon_restart" | "branch_checkpoint";

const reasonText: Record<OpenCallReason, string> = {
  interrupted: "Tool call interrupted by the user before it finished; its outcome is unknown.",
  failed: "Tool call not completed because the turn failed; its outcome is unknown.",
  daemon_restart:
    "The Skein daemon restarted while this tool call was in flight; its outcome is unknown. Check its effects before retrying.",
  branch_checkpoint: "not executed after branch checkpoint",
};

/** Calls in `history` that have no result yet, in order. */
export function openToolCalls(history: readonly Item[]): ToolCallItem[] {
  const answered = new Set<string>();
  for (const item of history) if (item.type === "tool_result") answered.add(item.call_id);
  return history.filter(
    (item): item is ToolCallItem => item.type === "tool_call" && !answered.has(item.call_id),
  );
}

/** Error results closing every open call of `history`, in call order. */
export function closeOpenCalls(history: readonly Item[], reason: OpenCallReason): ToolResultItem[] {
  return openToolCalls(history).map((call) => toolResult(call.call_id, reasonText[reason], true));
}
