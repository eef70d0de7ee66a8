import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { agentRow, TaskNotices, taskLiveLine } from "../../../src/cli/render/task-line.js";
import { sessionSnapshot } from "../../support/session-snapshot.js";

const paint = pc.createColors(false);
const usage = (total: number) => ({
  prompt_tokens: total,
  completion_tokens: 0,
  cached_prompt_tokens: 0,
  total_tokens: total,
});
const child = "01a22934-c991-7aaa-8431-178574c01836";

describe("the lines of a task's child", () => {
  it("shows a running task's agent, its prompt on one line and its elapsed time", () => {
    const task = {
      callId: "c",
      childId: child,
      agent: "alpha",
      prompt: "find\nthe loader",
      startedAt: 1_000,
    };
    expect(taskLiveLine(paint, task, 5_250)).toBe("↳ alpha · find the loader · 4.3 s");
    expect(taskLiveLine(paint, { ...task, prompt: "" }, 1_000)).toBe("↳ alpha · 0.0 s");
    expect(taskLiveLine(paint, { ...task, prompt: "x".repeat(200) }, 1_000, 60).length).toBeLessThan(60);
  });

  it("says where a task runs when it starts, and how it ended with its child's tokens", () => {
    const notices = new TaskNotices();
    const started = { call_id: "c", child_session_id: child, agent: "alpha" };
    expect(notices.notice({ type: "task_started", sequence: 1, data: started })).toBe(
      "↳ agent alpha is working in session 01a22934-c991 (/agents opens it)",
    );
    const ended = {
      call_id: "c",
      child_session_id: child,
      state: "completed" as const,
      usage: usage(12_345),
    };
    expect(notices.notice({ type: "task_completed", sequence: 2, data: ended })).toBe(
      "↳ agent alpha completed · 12k tokens (session 01a22934-c991)",
    );
    const unseen = { ...ended, call_id: "other", state: "failed" as const, usage: usage(0) };
    expect(new TaskNotices().notice({ type: "task_completed", sequence: 3, data: unseen })).toBe(
      "↳ agent (unknown) failed · 0 tokens (session 01a22934-c991)",
    );
  });

  it("lists a child in /agents by number, id prefix, agent, status, tokens and task", () => {
    const summary = sessionSnapshot({
      id: child,
      agent: "alpha",
      usage: usage(0),
      status: { phase: "running", run_id: "r", interrupt_requested: false, blocking_reason: null },
      preview: { text: "write the note", transcript_count: 1, truncated: false },
    });
    expect(agentRow(paint, summary, 1, 13)).toBe(
      " 1  01a22934-c991  alpha  running  0 tokens  write the note",
    );
  });
});
