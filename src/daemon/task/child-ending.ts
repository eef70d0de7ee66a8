/**
 * How a child session's work on its task input ended, read from its log alone: the first
 * `run_outcome` after the entry that delivered the input (a turn a crash cut short writes none:
 * the turn that goes on with it ends the work), and the last assistant text before it, which
 * is the task's answer.
 *
 * Boundary rule: pure.
 */
import type { LogEntry } from "../../log/entries.js";
import type { Item } from "../../model/items.js";

/** How the child's work ended, as the parent's `task_completed` names it. */
type ChildEndState = "completed" | "interrupted" | "failed";

/** The end of the child's work on one input. */
export interface ChildEnding {
  state: ChildEndState;
  /** The child's final answer (empty when it gave no text). */
  answer: string;
  /** A failed run's message. */
  error: string | null;
}

/** The ending of the work on input `inputId` in `entries` (the child's log in order); null while it runs. */
export function childEnding(entries: readonly LogEntry[], inputId: string): ChildEnding | null {
  const start = entries.findIndex((entry) => "input_id" in entry && entry.input_id === inputId);
  if (start < 0) return null;
  let answer = "";
  for (let i = start; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.kind === "assistant_items") {
      const text = lastText(entry.items);
      if (text !== null) answer = text;
    } else if (entry.kind === "run_outcome") {
      if (entry.interrupted) return { state: "interrupted", answer, error: null };
      if (entry.outcome.type === "error") return { state: "failed", answer, error: entry.outcome.message };
      return { state: "completed", answer, error: null };
    }
  }
  return null;
}

/** The text of the last assistant message among `items` that has any, or null. */
function lastText(items: readonly Item[]): string | null {
  let found: string | null = null;
  for (const item of items) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    const text = item.content
      .map((part) => (part.type === "text" ? part.text : ""))
      .join("")
      .trim();
    if (text !== "") found = text;
  }
  return found;
}
