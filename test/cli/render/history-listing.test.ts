import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { SessionSnapshot } from "../../../src/api/session-snapshot.js";
import { sessionHeader } from "../../../src/cli/render/history-listing.js";

const plain = pc.createColors(false);

function snapshot(todos: SessionSnapshot["todos"]): SessionSnapshot {
  return {
    id: "s",
    name: null,
    workspace: "/w",
    parent_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    activity_at: "2026-01-01T00:00:00.000Z",
    provider_profile: "p",
    model: "m",
    status: { phase: "idle", run_id: null, interrupt_requested: false, blocking_reason: null },
    cursor: { generation: "g", sequence: 0 },
    preview: { text: "", transcript_count: 0, truncated: false },
    input_order: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, total_tokens: 0 },
    creation: { kind: "new", submitted: { kind: "new", workspace: "/w" } },
    pending_inputs: [],
    pending_approvals: [],
    approval_policy: null,
    approval_mode: "ask",
    history: { items: [], older: null, newer: null, high_water: 0, byte_limited: false },
    settings: { provider_profile: "p", model: "m", request_config: {}, effective: null },
    context: null,
    todos,
  };
}

describe("skein show's header", () => {
  it("lists the agent's plan under the session's figures, and nothing when there is none", () => {
    const plan = sessionHeader(
      snapshot([
        { content: "read", status: "completed" },
        { content: "fix", status: "in_progress" },
        { content: "test", status: "pending" },
      ]),
      plain,
    );
    expect(plan.slice(-4)).toEqual(["plan (1/3 done)", "  [x] read", "  [~] fix", "  [ ] test"]);
    expect(sessionHeader(snapshot([]), plain).some((line) => line.startsWith("plan"))).toBe(false);
  });
});
