/**
 * Where a `task` call's child with context `fork` starts: the parent's last history checkpoint
 * before the model response that made the call, so the child reads the conversation up to the
 * request it was delegated from (and not the parent's unanswered calls).
 *
 * Boundary rule: pure over the parent's verified log.
 */
import type { PositionedEntry } from "../../log/entries.js";
import { projectEntry, type ToolNames } from "../history/project-history.js";

/** The checkpoint id to fork the parent's log at for call `callId`; null when the call is not in it. */
export function taskForkPoint(entries: readonly PositionedEntry[], callId: string): string | null {
  const names: ToolNames = new Map();
  let checkpoint: string | null = null;
  for (const placed of entries) {
    const { entry } = placed;
    const makesCall =
      entry.kind === "assistant_items" &&
      entry.items.some((item) => item.type === "tool_call" && item.call_id === callId);
    if (makesCall) return checkpoint;
    for (const projected of projectEntry(placed, names)) {
      if (projected.checkpoint_id !== null) checkpoint = projected.checkpoint_id;
    }
  }
  return null;
}
