import { describe, expect, it } from "vitest";
import type { PendingApproval } from "../../../src/api/approvals.js";
import { waitsForPerson } from "../../../src/cli/commands/run-exit.js";
import { exitCodes } from "../../../src/cli/exit-codes.js";

function request(tool: string, args: unknown): PendingApproval {
  return {
    call_id: "call_1",
    kind: "approval",
    tool,
    arguments: JSON.stringify(args),
    rule: { source: "config", tool: null, pattern: null, action: "ask" },
    run_id: "run-1",
    requested_at: "2026-01-01T00:00:00.000Z",
  };
}

const sessionId = "0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

describe("how skein run leaves when its turn waits for a person", () => {
  it("shows the agent's question and how to answer it", () => {
    const failure = waitsForPerson(sessionId, request("ask_user", { question: "Which branch?" }), false);
    expect(failure.message).toBe("the agent asks: Which branch? (call call_1)");
    expect(failure.hint).toBe('answer with `skein approve 0192a1b2-c3d4 call_1 -m "…"`');
    expect(failure.exitCode).toBe(exitCodes.approvalNeeded);
  });

  it("names the call that waits for approval and how to approve or deny it", () => {
    const failure = waitsForPerson(sessionId, request("run_command", { command: "git push" }), false);
    expect(failure.message).toBe("the turn waits for approval of run_command git push (call call_1)");
    expect(failure.hint).toBe(
      'answer with `skein approve 0192a1b2-c3d4 call_1` or `skein deny 0192a1b2-c3d4 call_1 -m "why"`, or run with --approve',
    );
  });

  it("says a restart cut a call short and how to resolve it", () => {
    const cut = { ...request("run_command", { command: "make deploy" }), kind: "unknown_outcome" as const };
    const failure = waitsForPerson(sessionId, cut, false);
    expect(failure.message).toBe(
      "a daemon restart cut run_command make deploy short and a person must say what became of it (call call_1)",
    );
    expect(failure.hint).toBe("answer with `skein resolve 0192a1b2-c3d4 call_1 retry|skip|done`");
  });

  it("says an ephemeral session was deleted, so the call can no longer be answered", () => {
    const failure = waitsForPerson(sessionId, request("run_command", { command: "git push" }), true);
    expect(failure.message).toBe(
      "the turn stopped to wait for approval of run_command git push; the --ephemeral session was deleted",
    );
    expect(failure.hint).toBe(
      "run with --approve, or without --ephemeral to answer it with skein approve/deny",
    );
    const question = waitsForPerson(sessionId, request("ask_user", { question: "Why?" }), true);
    expect(question.message).toBe(
      "the turn stopped to wait for an answer (Why?); the --ephemeral session was deleted",
    );
  });
});
