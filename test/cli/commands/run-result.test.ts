import { describe, expect, it } from "vitest";
import type { PendingApproval } from "../../../src/api/approvals.js";
import { resultOf, sumUsage } from "../../../src/cli/commands/run-result.js";

const usage = { prompt_tokens: 3, completion_tokens: 2, cached_prompt_tokens: 0, total_tokens: 5 };

function request(tool: string): PendingApproval {
  return {
    call_id: "call_1",
    kind: "approval",
    tool,
    arguments: "{}",
    rule: { source: "config", tool: null, pattern: null, action: "ask" },
    run_id: "run-1",
    requested_at: "2026-01-01T00:00:00.000Z",
  };
}

describe("the result line of skein run --json", () => {
  it("adds up the usage of every run of the input", () => {
    expect(
      sumUsage([
        { prompt: 10, completion: 4, cached: 2, total: 14 },
        { prompt: 5, completion: 1, cached: 0, total: 6 },
      ]),
    ).toEqual({ prompt_tokens: 15, completion_tokens: 5, cached_prompt_tokens: 2, total_tokens: 20 });
  });

  it("counts nothing when no run started", () => {
    expect(sumUsage([])).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_prompt_tokens: 0,
      total_tokens: 0,
    });
  });

  it("reports a completed turn with its outcome, or finished when the end was not seen live", () => {
    const result = resultOf(
      "s",
      { turnId: "r", state: "completed", outcome: "limit_reached", errors: [] },
      "hi",
      usage,
      0,
      false,
    );
    expect(result).toEqual({
      type: "result",
      session_id: "s",
      status: "completed",
      text: "hi",
      usage,
      exit_reason: "limit_reached",
      exit_code: 0,
      session_removed: false,
      errors: [],
    });
    expect(
      resultOf("s", { turnId: "r", state: "completed", errors: [] }, "", usage, 0, false).exit_reason,
    ).toBe("finished");
  });

  it("gives a failed turn's first error code as its reason", () => {
    const errors = [{ code: "provider_error", message: "503" }];
    const result = resultOf("s", { turnId: "r", state: "failed", errors }, "", usage, 1, true);
    expect(result).toMatchObject({
      status: "failed",
      exit_reason: "provider_error",
      errors,
      session_removed: true,
    });
    expect(resultOf("s", { turnId: "r", state: "failed", errors: [] }, "", usage, 1, false).exit_reason).toBe(
      "failed",
    );
  });

  it("reports interrupted, cancelled and forced turns as interrupted, each with its own reason", () => {
    expect(
      resultOf("s", { turnId: "r", state: "interrupted", errors: [] }, "", usage, 130, false),
    ).toMatchObject({
      status: "interrupted",
      exit_reason: "interrupted",
    });
    expect(
      resultOf("s", { turnId: null, state: "cancelled", errors: [] }, "", usage, 130, false),
    ).toMatchObject({
      status: "interrupted",
      exit_reason: "cancelled",
    });
    expect(resultOf("s", "forced", "", usage, 130, false)).toMatchObject({
      status: "interrupted",
      exit_reason: "forced",
    });
  });

  it("says a turn that waits for a person waits for a question or an approval", () => {
    expect(resultOf("s", request("ask_user"), "", usage, 5, false)).toMatchObject({
      status: "waiting",
      exit_reason: "question",
    });
    expect(resultOf("s", request("run_command"), "", usage, 5, false)).toMatchObject({
      status: "waiting",
      exit_reason: "approval_needed",
    });
  });

  it("reports a turn a daemon restart cut short as abandoned", () => {
    expect(resultOf("s", { turnId: "r", state: "abandoned", errors: [] }, "", usage, 1, false)).toMatchObject(
      {
        status: "abandoned",
        exit_reason: "daemon_restarted",
      },
    );
  });
});
