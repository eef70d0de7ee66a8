/** The page's task blocks: the stream's task events, relayed approvals, and the facts a block shows. */
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../src/api/history.js";
import { applyTaskEvent, noteChildAsked, taskFacts } from "../../web/src/transcript/task-state.js";
import { sessionSnapshot } from "../support/session-snapshot.js";

const usage = (total: number) => ({
  prompt_tokens: total,
  completion_tokens: 0,
  cached_prompt_tokens: 0,
  total_tokens: total,
});

function entry(kind: "tool_call" | "tool_result", value: unknown, isError = false): HistoryEntry {
  return {
    id: kind === "tool_call" ? "1-0" : "2-0",
    position: kind === "tool_call" ? 1 : 2,
    kind,
    turn_id: "t",
    input_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    content: [{ kind: "json", field: kind === "tool_call" ? "arguments" : "result", value: value as never }],
    checkpoint_id: null,
    tool: { name: "task", tool_call_id: "call_t", ...(isError ? { is_error: true } : {}) },
  };
}

const call = entry("tool_call", { agent: "alpha", prompt: "find A" });

describe("the page's task blocks", () => {
  it("follow a task from its start to its end, with the child's tokens", () => {
    const started = applyTaskEvent(new Map(), {
      type: "task_started",
      sequence: 1,
      data: { call_id: "call_t", child_session_id: "child", agent: "alpha" },
    });
    expect(taskFacts(call, undefined, started.get("call_t"), undefined)).toEqual({
      agent: "alpha",
      prompt: "find A",
      childId: "child",
      state: "running",
      tokens: null,
    });
    const asked = noteChildAsked(started, "child");
    expect(asked.get("call_t")?.asked).toBe(1);
    expect(noteChildAsked(started, "someone else").get("call_t")?.asked).toBe(0);
    const ended = applyTaskEvent(asked, {
      type: "task_completed",
      sequence: 2,
      data: { call_id: "call_t", child_session_id: "child", state: "failed", usage: usage(42) },
    });
    expect(taskFacts(call, undefined, ended.get("call_t"), undefined)).toMatchObject({
      state: "failed",
      tokens: 42,
    });
  });

  it("take a task the stream did not announce from the child's listing and the call's own result", () => {
    const child = {
      ...sessionSnapshot({ id: "child", agent: "alpha", usage: usage(7) }),
      status: { phase: "waiting" as const, run_id: "r", interrupt_requested: false, blocking_reason: null },
    };
    expect(taskFacts(call, undefined, undefined, child)).toMatchObject({
      childId: "child",
      state: "waiting for approval",
      tokens: 7,
    });
    const result = entry("tool_result", "the answer");
    expect(taskFacts(call, result, undefined, child).state).toBe("completed");
    expect(taskFacts(call, entry("tool_result", "no", true), undefined, undefined)).toMatchObject({
      childId: null,
      state: "failed",
      tokens: null,
    });
    const unreadable = entry("tool_call", "{not json");
    expect(taskFacts(unreadable, undefined, undefined, undefined)).toMatchObject({
      agent: "agent",
      prompt: "",
    });
  });
});
