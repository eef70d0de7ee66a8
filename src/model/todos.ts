/**
 * The agent's plan: the checklist `todo_write` keeps, as the log's calls carry it and the
 * snapshot shows it (`todos`).
 *
 * Boundary rule: pure data and the one reading of a call's arguments into a plan, shared by the
 * tool, the log's replay and the clients, so they never disagree about what a call said.
 */
import { toolArgumentsObject } from "./tool-arguments.js";

/** The name of the tool that sets the plan. */
export const TODO_WRITE_TOOL = "todo_write";

/** Where one item of the plan stands. */
export type TodoStatus = "pending" | "in_progress" | "completed";

/** The statuses, in the order a plan goes through them. */
export const TODO_STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed"];

/** One item of the plan. */
export interface Todo {
  content: string;
  status: TodoStatus;
}

/** Most items a plan may hold. */
export const MAX_TODOS = 50;
/** Longest item text, in characters. */
export const MAX_TODO_CHARS = 500;

function isStatus(value: unknown): value is TodoStatus {
  return typeof value === "string" && (TODO_STATUSES as readonly string[]).includes(value);
}

/**
 * The plan a `todo_write` call's arguments (a JSON object or its text) set, or null when they are
 * not a well-formed plan (the tool refuses such a call, so it sets nothing).
 */
export function todosFromArguments(args: unknown): Todo[] | null {
  const value = typeof args === "string" ? toolArgumentsObject(args) : args;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { todos, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || !Array.isArray(todos) || todos.length > MAX_TODOS) return null;
  const plan: Todo[] = [];
  for (const todo of todos as unknown[]) {
    if (typeof todo !== "object" || todo === null || Array.isArray(todo)) return null;
    const { content, status, ...extra } = todo as Record<string, unknown>;
    if (Object.keys(extra).length > 0 || !isStatus(status)) return null;
    if (typeof content !== "string" || content.trim() === "" || content.length > MAX_TODO_CHARS) return null;
    plan.push({ content, status });
  }
  return plan;
}

/** The mark a status shows as in a text checklist: `[x]`, `[~]` or `[ ]`. */
export function todoMark(status: TodoStatus): string {
  switch (status) {
    case "completed":
      return "[x]";
    case "in_progress":
      return "[~]";
    case "pending":
      return "[ ]";
    default: {
      const unreachable: never = status;
      return unreachable;
    }
  }
}
