/**
 * `todo_write`: the agent's plan, a checklist it rewrites whole as it works. The call changes
 * nothing on disk: the log keeps the call, and the session's plan is its latest well-formed
 * `todo_write` (the snapshot's `todos`), so it survives restarts and follows forks.
 *
 * Boundary rule: the input schema and `todosFromArguments` (src/model/todos.ts) accept the same
 * plans; the result is the plan as a text checklist, bounded by the schema's limits.
 */
import {
  MAX_TODO_CHARS,
  MAX_TODOS,
  TODO_STATUSES,
  TODO_WRITE_TOOL,
  type Todo,
  todoMark,
} from "../model/todos.js";
import type { ToolDefinition } from "../model/tools.js";
import { argumentsSchema } from "./argument-schema.js";
import { toolKind } from "./tool-kind.js";

/** Arguments of `todo_write`. */
export interface TodoWriteInput {
  todos: Todo[];
}

const inputSchema = argumentsSchema(
  {
    todos: {
      type: "array",
      maxItems: MAX_TODOS,
      description: "The whole plan, in order; it replaces the previous one.",
      items: argumentsSchema(
        {
          content: { type: "string", minLength: 1, maxLength: MAX_TODO_CHARS, pattern: "\\S" },
          status: { enum: [...TODO_STATUSES] },
        },
        ["content", "status"],
      ),
    },
  },
  ["todos"],
);

const description =
  "Keep your plan for the task as a checklist the user sees live: send the whole list each time, " +
  "each item {content, status} with status pending, in_progress or completed. Use it for work with " +
  "several steps; mark an item in_progress when you start it (one at a time) and completed as soon as " +
  "it is done.";

const todoWriteKind = toolKind<TodoWriteInput>(TODO_WRITE_TOOL, inputSchema);

/** The plan as a text checklist: a count line, then `[x]`, `[~]` or `[ ]` and each item. */
export function renderTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return "the plan is empty";
  const count = (status: Todo["status"]) => todos.filter((todo) => todo.status === status).length;
  const head =
    `${todos.length} todo${todos.length === 1 ? "" : "s"}: ${count("completed")} completed, ` +
    `${count("in_progress")} in progress, ${count("pending")} pending`;
  return [
    head,
    ...todos.map((todo) => `${todoMark(todo.status)} ${todo.content.replaceAll("\n", " ")}`),
  ].join("\n");
}

/** The `todo_write` tool (it needs no workspace). */
export function todoWriteTool(): ToolDefinition {
  return todoWriteKind(description, async (input) => renderTodos(input.todos));
}
