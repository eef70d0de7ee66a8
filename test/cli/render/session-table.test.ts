import { PassThrough } from "node:stream";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../../src/api/session-snapshot.js";
import { sessionTable } from "../../../src/cli/render/session-table.js";

function summary(id: string, changes: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    name: null,
    workspace: "/w",
    parent_id: null,
    parent_call_id: null,
    agent: null,
    created_at: "2026-01-01T00:00:00.000Z",
    activity_at: "2026-01-01T00:00:00.000Z",
    provider_profile: null,
    model: "m",
    status: { phase: "idle", run_id: null, interrupt_requested: false, blocking_reason: null },
    cursor: null,
    preview: { text: "the prompt", transcript_count: 1, truncated: false },
    input_order: 1,
    usage: { prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, total_tokens: 0 },
    creation: { kind: "new" },
    ...changes,
  };
}

describe("the sessions table", () => {
  it("names a task child's agent and parent (by its id prefix) before its preview", () => {
    const parent = "01a22934-c991-732a-9431-178574c01836";
    const child = "01a22934-c991-7aaa-8431-178574c01836";
    const output = { stream: new PassThrough(), tty: false, paint: pc.createColors(false), columns: 120 };
    const lines = sessionTable(
      [summary(parent), summary(child, { parent_id: parent, parent_call_id: "call_1", agent: "alpha" })],
      output,
    );
    expect(lines[1]).not.toContain("agent");
    expect(lines[2]).toContain("agent alpha of 01a22934-c991-73");
    expect(lines[2]).toContain("the prompt");
  });
});
