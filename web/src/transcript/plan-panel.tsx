/**
 * The agent's plan, shown live above the transcript: the latest well-formed `todo_write` call
 * among the entries the page holds, else the snapshot's `todos`.
 */
import type { HistoryEntry } from "../../../src/api/history.js";
import { TODO_WRITE_TOOL, type Todo, todoMark, todosFromArguments } from "../../../src/api/todos.js";

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

/** The plan as a checklist; nothing when it is empty. */
export function PlanPanel({ todos }: { todos: readonly Todo[] }) {
  if (todos.length === 0) return null;
  const done = todos.filter((todo) => todo.status === "completed").length;
  return (
    <section className="plan" data-testid="plan">
      <div className="plan-title">
        Plan ({done}/{todos.length} done)
      </div>
      <ul>
        {todos.map((todo, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a plan is replaced whole, never reordered in place.
          <li key={index} className={`todo ${todo.status}`} data-status={todo.status}>
            <span className="todo-mark">{todoMark(todo.status)}</span> {todo.content}
          </li>
        ))}
      </ul>
    </section>
  );
}
