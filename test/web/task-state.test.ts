/** The page's task blocks: the stream's task events, relayed approvals, and the facts a block shows. */
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../src/api/history.js";
import {
  applyChildApprovalEvent,
  applyTaskEvent,
  type ChildApprovals,
  forgetChildApprovals,
  noteChildAsked,
  taskFacts,
} from "../../web/src/transcript/task-state.js";
import { allowedAnswer, waitingCall } from "../support/approval-records.js";
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
const none: ChildApprovals = new Map();

const request = waitingCall("call_w");

describe("the page's task blocks", () => {
  it("follow a task from its start to its end, with the child's tokens", () => {
    const started = applyTaskEvent(new Map(), {
      type: "task_started",
      sequence: 1,
      data: { call_id: "call_t", child_session_id: "child", agent: "alpha" },
    });
    expect(taskFacts(call, undefined, started.get("call_t"), undefined, none)).toEqual({
      agent: "alpha",
      prompt: "find A",
      childId: "child",
      state: "running",
      tokens: null,
      approvals: [],
    });
    const asked = noteChildAsked(started, "child");
    expect(asked.get("call_t")?.asked).toBe(1);
    expect(noteChildAsked(started, "someone else").get("call_t")?.asked).toBe(0);
    const ended = applyTaskEvent(asked, {
      type: "task_completed",
      sequence: 2,
      data: { call_id: "call_t", child_session_id: "child", state: "failed", usage: usage(42) },
    });
    expect(taskFacts(call, undefined, ended.get("call_t"), undefined, none)).toMatchObject({
      state: "failed",
      tokens: 42,
    });
  });

  it("take a task the stream did not announce from the child's listing and the call's own result", () => {
    const child = {
      ...sessionSnapshot({ id: "child", agent: "alpha", usage: usage(7) }),
      status: { phase: "waiting" as const, run_id: "r", interrupt_requested: false, blocking_reason: null },
    };
    expect(taskFacts(call, undefined, undefined, child, none)).toMatchObject({
      childId: "child",
      state: "waiting for approval",
      tokens: 7,
    });
    const result = entry("tool_result", "the answer");
    expect(taskFacts(call, result, undefined, child, none).state).toBe("completed");
    expect(taskFacts(call, entry("tool_result", "no", true), undefined, undefined, none)).toMatchObject({
      childId: null,
      state: "failed",
      tokens: null,
    });
    const unreadable = entry("tool_call", "{not json");
    expect(taskFacts(unreadable, undefined, undefined, undefined, none)).toMatchObject({
      agent: "agent",
      prompt: "",
    });
  });

  it("keep a child's relayed calls until their relayed answer, and show them in its block as waiting", () => {
    const started = applyTaskEvent(new Map(), {
      type: "task_started",
      sequence: 1,
      data: { call_id: "call_t", child_session_id: "child", agent: "alpha" },
    });
    const relayed = { ...request, session_id: "child" };
    let waiting = applyChildApprovalEvent(none, "child", {
      type: "approval_requested",
      sequence: 2,
      data: relayed,
    });
    // Relayed again (a restarted call tells of it again): still one.
    waiting = applyChildApprovalEvent(waiting, "child", {
      type: "approval_requested",
      sequence: 3,
      data: relayed,
    });
    expect(taskFacts(call, undefined, started.get("call_t"), undefined, waiting)).toMatchObject({
      state: "waiting for approval",
      approvals: [request],
    });
    const answer = { ...allowedAnswer("call_w"), run_id: "r", session_id: "child" };
    const answered = applyChildApprovalEvent(waiting, "child", {
      type: "approval_resolved",
      sequence: 4,
      data: answer,
    });
    expect(answered.size).toBe(0);
    expect(taskFacts(call, undefined, started.get("call_t"), undefined, answered).state).toBe("running");
    expect(forgetChildApprovals(waiting, "child").size).toBe(0);
    expect(forgetChildApprovals(waiting, "other").size).toBe(1);
    expect(forgetChildApprovals(waiting, null).size).toBe(0);
  });
});
