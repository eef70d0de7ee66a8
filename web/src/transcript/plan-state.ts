/** Which plan the page shows: the latest well-formed `todo_write` call it holds, else the snapshot's `todos`. */
import type { HistoryEntry } from "../../../src/api/history.js";
import { TODO_WRITE_TOOL, type Todo, todosFromArguments } from "../../../src/api/todos.js";

/** The plan the page shows: from the newest `todo_write` call among `entries`, else `fromSnapshot`. */
export function currentPlan(
  entries: readonly HistoryEntry[],
  fromSnapshot: readonly Todo[],
): readonly Todo[] {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry?.kind !== "tool_call" || entry.tool?.name !== TODO_WRITE_TOOL) continue;
    const part = entry.content.find(
      (candidate) => candidate.kind === "json" && candidate.field === "arguments",
    );
    const todos = part?.kind === "json" ? todosFromArguments(part.value) : null;
    if (todos !== null) return todos;
  }
  return fromSnapshot;
}
