/** Finding tool calls that never got a result (an interrupted run left them behind). Pure. */
import type { Item, ToolCallItem } from "../model/items.js";

/** Every tool call in `history` with no tool result of the same call_id, in history order. */
export function pendingToolCalls(history: readonly Item[]): ToolCallItem[] {
  const answered = new Set<string>();
  for (const item of history) if (item.type === "tool_result") answered.add(item.call_id);
  return history.filter(
    (item): item is ToolCallItem => item.type === "tool_call" && !answered.has(item.call_id),
  );
}
