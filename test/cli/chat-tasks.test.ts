import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/api/session-events.js";
import { PendingApprovals, waitingKey } from "../../src/cli/approval-desk.js";
import { ChatTasks } from "../../src/cli/chat-tasks.js";
import type { StreamBatch } from "../../src/client/stream-batch.js";
import { allowedAnswer, waitingCall } from "../support/approval-records.js";
import { sessionSnapshot } from "../support/session-snapshot.js";

/** A batch of `events` without a reset. */
function batch(...events: SessionEvent[]): StreamBatch {
  return { generation: "g", cursor: 0, events, reset: null, raw: [] };
}

const taskCall: SessionEvent = {
  type: "tool",
  sequence: 1,
  data: {
    tool_call_id: "call_t",
    name: "task",
    arguments: JSON.stringify({ agent: "alpha", prompt: "find A" }),
    result: null,
    is_error: false,
  },
};
const started: SessionEvent = {
  type: "task_started",
  sequence: 2,
  data: { call_id: "call_t", child_session_id: "child", agent: "alpha" },
};
const usage = { prompt_tokens: 1, completion_tokens: 1, cached_prompt_tokens: 0, total_tokens: 2 };
const completed: SessionEvent = {
  type: "task_completed",
  sequence: 4,
  data: { call_id: "call_t", child_session_id: "child", state: "completed", usage },
};
const request = waitingCall("call_w");
const relayed: SessionEvent = {
  type: "approval_requested",
  sequence: 3,
  data: { ...request, session_id: "child" },
};

describe("the chat's running tasks", () => {
  it("runs a task's live line from its start to its end, with the prompt its call gave", () => {
    let now = 1_000;
    const tasks = new ChatTasks(() => now);
    tasks.observe(batch(taskCall, started));
    now = 3_500;
    expect(tasks.lines(pc.createColors(false), 100)).toEqual(["↳ alpha · find A · 2.5 s"]);
    // The child's tokens so far, once a listing of the children gave them.
    const listed = { ...sessionSnapshot({ id: "child" }), usage: { ...usage, total_tokens: 1_234 } };
    tasks.noteChildren([listed]);
    expect(tasks.lines(pc.createColors(false), 100)).toEqual(["↳ alpha · find A · 2.5 s · 1.2k tokens"]);
    tasks.observe(batch(completed));
    expect(tasks.running).toEqual([]);
  });

  it("forgets every task when the turn ends (their end may never be published)", () => {
    const tasks = new ChatTasks();
    tasks.observe(batch(taskCall, started));
    const ended: SessionEvent = {
      type: "turn_completed",
      sequence: 5,
      data: { run_id: "r", state: "interrupted", input_ids: [], outcome: "error" },
    };
    tasks.observe(batch(ended));
    expect(tasks.running).toEqual([]);
  });
});

describe("a child's approvals relayed to the parent's stream", () => {
  it("are ignored unless asked for, then kept by session and call until the task ends", () => {
    const plain = new PendingApprovals();
    plain.observe(batch(relayed));
    expect(plain.list()).toEqual([]);
    const pending = new PendingApprovals({ relayed: true });
    // The parent's own call with the same call id is a different call.
    pending.observe(batch(relayed, { type: "approval_requested", sequence: 4, data: request }));
    expect(pending.list().map(waitingKey)).toEqual(["child/call_w", "call_w"]);
    pending.observe(batch(completed));
    expect(pending.list().map(waitingKey)).toEqual(["call_w"]);
  });

  it("are forgotten when their relayed resolution comes, and the parent's own call of the same id stays", () => {
    const pending = new PendingApprovals({ relayed: true });
    pending.observe(batch(relayed, { type: "approval_requested", sequence: 4, data: request }));
    const resolved: SessionEvent = {
      type: "approval_resolved",
      sequence: 5,
      data: { ...allowedAnswer("call_w", { client_id: "web" }), run_id: "r", session_id: "child" },
    };
    pending.observe(batch(resolved));
    expect(pending.list().map(waitingKey)).toEqual(["call_w"]);
    expect(pending.resolution("child/call_w")?.client_id).toBe("web");
  });

  it("are forgotten once answered here", () => {
    const pending = new PendingApprovals({ relayed: true });
    pending.observe(batch(relayed));
    const [waiting] = pending.list();
    pending.answeredRelayed(waiting!);
    expect(pending.has("child/call_w")).toBe(false);
  });

  it("are taken from a child's own snapshot when the parent's stream no longer has them", () => {
    const pending = new PendingApprovals({ relayed: true });
    pending.relayedFrom("child", [request]);
    expect(pending.list()).toEqual([{ ...request, session_id: "child" }]);
    const plain = new PendingApprovals();
    plain.relayedFrom("child", [request]);
    expect(plain.list()).toEqual([]);
  });
});
