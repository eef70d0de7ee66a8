/**
 * Tool calls without results: what an interrupted or crashed turn leaves behind. The worker
 * resumes by running them; the daemon closes them with error results. Pure.
 */
import type { Item, ToolCallItem } from "./items.js";

/** Every tool call in `history` with no tool result of the same call_id, in history order. */
export function openToolCalls(history: readonly Item[]): ToolCallItem[] {
  const answered = new Set<string>();
  for (const item of history) if (item.type === "tool_result") answered.add(item.call_id);
  return history.filter(
    (item): item is ToolCallItem => item.type === "tool_call" && !answered.has(item.call_id),
  );
}
