/** The page's plan: the newest well-formed todo_write call it holds, else the snapshot's. */
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../src/api/history.js";
import type { JsonValue } from "../../src/model/json.js";
import { currentPlan } from "../../web/src/transcript/plan-state.js";

function call(position: number, name: string, args: JsonValue): HistoryEntry {
  return {
    id: `${position}-0`,
    position,
    kind: "tool_call",
    turn_id: "t",
    input_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    content: [{ kind: "json", field: "arguments", value: args }],
    checkpoint_id: null,
    tool: { name, tool_call_id: `c${position}` },
  };
}

describe("the page's plan", () => {
  const snapshotPlan = [{ content: "from the snapshot", status: "pending" as const }];

  it("is the snapshot's until a todo_write call arrives, then the newest well-formed call's", () => {
    expect(currentPlan([], snapshotPlan)).toEqual(snapshotPlan);
    const first = call(1, "todo_write", { todos: [{ content: "a", status: "in_progress" }] });
    const second = call(2, "todo_write", { todos: [{ content: "a", status: "completed" }] });
    const malformed = call(3, "todo_write", { todos: [{ content: "b", status: "started" }] });
    const other = call(4, "read_file", { path: "x" });
    expect(currentPlan([first, second, malformed, other], snapshotPlan)).toEqual([
      { content: "a", status: "completed" },
    ]);
  });
});
