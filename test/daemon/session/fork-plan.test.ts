import { describe, expect, it } from "vitest";
import { CheckpointUnknownError } from "../../../src/daemon/errors.js";
import { planFork } from "../../../src/daemon/session/fork-plan.js";
import type { LogEntry, PositionedEntry } from "../../../src/log/entries.js";
import { buildChain } from "../../../src/log/entry-hash.js";
import { assistantMessage, toolCall, toolResult, userMessage } from "../../../src/model/items.js";

function placed(entries: LogEntry[]): PositionedEntry[] {
  return buildChain(null, entries).map((hashed, position) => ({ ...hashed, position }));
}

describe("planFork", () => {
  const log = placed([
    { kind: "session_start", ts: 1, system_prompt: "be brief", config: {}, history: [] },
    { kind: "user_input", ts: 2, item: userMessage("list and read"), turn_id: "t1", input_id: "i1" },
    {
      kind: "assistant_items",
      ts: 3,
      items: [toolCall("c1", "list_files", "{}"), toolCall("c2", "read_file", "{}")],
      turn_id: "t1",
    },
    { kind: "tool_results", ts: 4, items: [toolResult("c1", "a"), toolResult("c2", "b")], turn_id: "t1" },
    { kind: "assistant_items", ts: 5, items: [assistantMessage("done")], turn_id: "t1" },
  ]);

  it("copies the log up to the checkpoint's item and closes the calls left open there", () => {
    const plan = planFork(log, "src", "2-0", 99);
    expect(plan.systemPrompt).toBe("be brief");
    expect(plan.origin).toEqual({ session_id: "src", entry_hash: log[2]!.hash, position: 2 });
    expect(plan.entries).toEqual([
      { ...log[0]!.entry, forked_from: plan.origin },
      log[1]!.entry,
      { ...log[2]!.entry, items: [toolCall("c1", "list_files", "{}")] },
      {
        kind: "tool_results",
        ts: 99,
        items: [toolResult("c1", "not executed after branch checkpoint", true)],
      },
    ]);
  });

  it("adds nothing after a checkpoint with no open call", () => {
    expect(planFork(log, "src", "4", 99).entries).toHaveLength(5);
  });

  it("refuses a checkpoint the source does not have", () => {
    expect(() => planFork(log, "src", "2", 99)).toThrow(CheckpointUnknownError);
  });
});
