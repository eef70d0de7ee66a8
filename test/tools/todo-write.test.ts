import { describe, expect, it } from "vitest";
import { MAX_TODOS, todosFromArguments } from "../../src/model/todos.js";
import { todoWriteTool } from "../../src/tools/todo-write.js";
import { callTool, expectToolError } from "./tool-harness.js";

describe("todo_write", () => {
  it("answers with the plan as a checklist", async () => {
    const todos = [
      { content: "read the code", status: "completed" },
      { content: "write the fix", status: "in_progress" },
      { content: "run the tests", status: "pending" },
    ];
    expect(await callTool(todoWriteTool(), { todos })).toBe(
      [
        "3 todos: 1 completed, 1 in progress, 1 pending",
        "[x] read the code",
        "[~] write the fix",
        "[ ] run the tests",
      ].join("\n"),
    );
    expect(await callTool(todoWriteTool(), { todos: [] })).toBe("the plan is empty");
  });

  it("refuses what the plan reading refuses, and accepts what it accepts", async () => {
    const refused = [
      { todos: [{ content: "x", status: "done" }] },
      { todos: [{ content: "   ", status: "pending" }] },
      { todos: [{ content: "x", status: "pending", extra: 1 }] },
      { todos: Array.from({ length: MAX_TODOS + 1 }, () => ({ content: "x", status: "pending" })) },
      { todos: "x" },
      {},
    ];
    for (const args of refused) {
      expect(todosFromArguments(args)).toBeNull();
      await expectToolError(callTool(todoWriteTool(), args), "invalid_argument");
    }
    const accepted = { todos: [{ content: "x", status: "pending" }] };
    expect(todosFromArguments(JSON.stringify(accepted))).toEqual(accepted.todos);
  });
});
