/**
 * The agent's plan as clients read it: a snapshot's `todos`, and each later `todo_write` call in
 * the stream read the same way the daemon's replay reads it.
 *
 * Boundary rule: a re-export of the model's one reading (src/model/todos.ts), so the daemon, the
 * CLI and the web UI agree on what a call set.
 */
export { TODO_WRITE_TOOL, type Todo, todoMark, todosFromArguments } from "../model/todos.js";
