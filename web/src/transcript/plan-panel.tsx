/**
 * The agent's plan, shown live above the transcript (`currentPlan` says which).
 */
import { type Todo, todoMark } from "../../../src/api/todos.js";

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
