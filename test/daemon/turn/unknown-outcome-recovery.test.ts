/**
 * Recovery under config.json's `onUnknownOutcome`: a cut call whose tool says `ask` is left
 * open and waiting (an `approval_requested` entry of source `unknown_outcome`) instead of getting
 * the "outcome unknown" result; the answers `retry`, `skip` and `done` and what the model reads
 * of each; a retried call cut again is asked again; a turn ended while it waits tells the model
 * its outcome is unknown. Pure functions over logs replayed by the log's own `applyEntry`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { waitingCallsClosed } from "../../../src/daemon/approval/approval-gate.js";
import {
  answeredAction,
  doneText,
  knownResult,
  skippedText,
} from "../../../src/daemon/approval/call-outcomes.js";
import { answerProblem } from "../../../src/daemon/approval/unknown-outcome-requests.js";
import { recoverCutTurn } from "../../../src/daemon/turn/turn-recovery.js";
import { applyEntry, emptyState } from "../../../src/log/collect-state.js";
import type { LogEntry } from "../../../src/log/entries.js";
import type { RestoredState } from "../../../src/log/restored-state.js";
import type { UnknownOutcomeDecision } from "../../../src/model/approval-policy.js";
import { type ToolResultItem, toolCall, userMessage } from "../../../src/model/items.js";
import { openToolCalls } from "../../../src/model/open-tool-calls.js";
import type { UnknownOutcomeAction, UnknownOutcomePolicy } from "../../../src/model/unknown-outcome.js";

const workspace = "/work/space";
const cutTurn = { id: "t1", interruptRequested: false };
const unknownOutcome = /outcome is unknown/;

function replay(entries: readonly LogEntry[], state: RestoredState = emptyState()): RestoredState {
  for (const entry of entries) applyEntry(state, entry);
  return state;
}

/** The log of a turn cut while the calls of `tools` ran (each allowed by the policy). */
function cutLog(tools: readonly string[]): LogEntry[] {
  const args = (tool: string) =>
    tool === "run_command" ? JSON.stringify({ command: "make" }) : JSON.stringify({ path: "a.txt" });
  return [
    { kind: "session_start", ts: 1, system_prompt: null, config: {}, history: [] },
    { kind: "user_input", ts: 2, item: userMessage("go"), turn_id: "t1" },
    {
      kind: "assistant_items",
      ts: 3,
      items: tools.map((tool, i) => toolCall(`c${i}`, tool, args(tool))),
      turn_id: "t1",
    },
  ];
}

function answer(callId: string, decision: UnknownOutcomeDecision, message?: string): LogEntry {
  return {
    kind: "approval_resolved",
    ts: 20,
    call_id: callId,
    decision,
    by: "client",
    answered_by: "bootstrap",
    ...(message === undefined ? {} : { message }),
    turn_id: "t2",
  };
}

function resultsOf(entries: readonly LogEntry[]): ToolResultItem[] {
  return entries.flatMap((entry) => (entry.kind === "tool_results" ? entry.items : [])) as ToolResultItem[];
}

describe("recovery of a call whose tool's unknown outcome is asked about", () => {
  it("leaves it open and waiting (source unknown_outcome), with no result and no note", () => {
    const state = replay(cutLog(["run_command"]));
    const recovery = recoverCutTurn(cutTurn, state, workspace, 9, { run_command: "ask" });
    expect(recovery).toEqual({
      state: "abandoned",
      continues: true,
      entries: [
        {
          kind: "approval_requested",
          ts: 9,
          call_id: "c0",
          tool: "run_command",
          rule: { source: "unknown_outcome", tool: "run_command", pattern: null, action: "ask" },
          turn_id: "t1",
        },
      ],
    });
    const after = replay(recovery.entries, state);
    expect(after.pending_approvals).toMatchObject([{ call_id: "c0", rule: { source: "unknown_outcome" } }]);
    expect(openToolCalls(after.history).map((call) => call.call_id)).toEqual(["c0"]);
  });

  it("asks about exactly the calls whose tool says ask (own name over `*`), closes the others as before", () => {
    const actions = fc.option(fc.constantFrom<UnknownOutcomeAction>("tell_model", "ask"), { nil: undefined });
    const tools = ["run_command", "write_file", "fs__call"];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...tools), { minLength: 1, maxLength: 4 }),
        fc.record({ run_command: actions, write_file: actions, "*": actions }),
        (batch, written) => {
          const policy: UnknownOutcomePolicy = Object.fromEntries(
            Object.entries(written).filter(([, action]) => action !== undefined),
          ) as UnknownOutcomePolicy;
          const state = replay(cutLog(batch));
          const recovery = recoverCutTurn(cutTurn, state, workspace, 9, policy);
          const asks = (tool: string) => (policy[tool] ?? policy["*"] ?? "tell_model") === "ask";
          const asked = batch.map((tool, i) => ({ tool, id: `c${i}` })).filter(({ tool }) => asks(tool));
          const requests = recovery.entries.filter((entry) => entry.kind === "approval_requested");
          expect(requests.map((entry) => entry.call_id)).toEqual(asked.map(({ id }) => id));
          const results = resultsOf(recovery.entries);
          expect(results.map((result) => result.call_id)).toEqual(
            batch.map((_, i) => `c${i}`).filter((id) => !asked.some((call) => call.id === id)),
          );
          for (const result of results) expect(result.output).toMatch(unknownOutcome);
          const kinds = recovery.entries.map((entry) => entry.kind);
          // A note between the open calls and their later results would break their pairing.
          expect(kinds.includes("note")).toBe(asked.length === 0);
          if (asked.length === 0) {
            // `tell_model` everywhere is exactly today's recovery.
            expect(recovery).toEqual(recoverCutTurn(cutTurn, state, workspace, 9));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives `retry` the run, `skip` the not-run result (with the message), `done` the message or a default", () => {
    const state = replay(cutLog(["run_command"]));
    const waiting = replay(recoverCutTurn(cutTurn, state, workspace, 9, { "*": "ask" }).entries, state);
    const call = openToolCalls(waiting.history)[0]!;
    const answeredWith = (entry: LogEntry) => replay([entry], structuredClone(waiting));
    const retried = answeredWith(answer("c0", "retry"));
    expect(retried.pending_approvals).toEqual([]);
    expect(retried.approval_decisions.c0).toMatchObject({ decision: "retry", answered_by: "bootstrap" });
    expect(answeredAction(call, retried.approval_decisions.c0!)).toEqual({ action: "continue" });
    expect(knownResult(call, retried.approval_decisions, workspace)).toBeNull();

    const skipped = answeredWith(answer("c0", "skip", "the build server was down"));
    expect(knownResult(call, skipped.approval_decisions, workspace)).toEqual({
      type: "tool_result",
      call_id: "c0",
      output: `${skippedText} Their message: the build server was down`,
      is_error: true,
    });
    expect(
      answeredAction(call, answeredWith(answer("c0", "done", "built 3 targets")).approval_decisions.c0!),
    ).toEqual({
      action: "result",
      result: { output: "built 3 targets", is_error: false },
    });
    expect(answeredAction(call, answeredWith(answer("c0", "done")).approval_decisions.c0!)).toEqual({
      action: "result",
      result: { output: doneText, is_error: false },
    });
  });

  it("asks again about a retried call that a second crash cut short", () => {
    const state = replay(cutLog(["run_command"]));
    const policy: UnknownOutcomePolicy = { run_command: "ask" };
    replay(recoverCutTurn(cutTurn, state, workspace, 9, policy).entries, state);
    replay([answer("c0", "retry")], state);
    const second = recoverCutTurn({ id: "t2", interruptRequested: false }, state, workspace, 30, policy);
    expect(second.entries.map((entry) => entry.kind)).toEqual(["approval_requested"]);
    const after = replay(second.entries, state);
    expect(after.approval_decisions.c0).toBeUndefined();
    expect(after.pending_approvals.map((pending) => pending.call_id)).toEqual(["c0"]);
  });

  it("tells the model the outcome is unknown, not that it did not run, when the turn ends while it waits", () => {
    const state = replay(cutLog(["run_command"]));
    replay(recoverCutTurn(cutTurn, state, workspace, 9, { run_command: "ask" }).entries, state);
    for (const by of ["interrupt", "turn_end"] as const) {
      const entries = waitingCallsClosed(state, by, "t2", 40);
      expect(entries[0]).toMatchObject({ kind: "approval_resolved", call_id: "c0", decision: "deny", by });
      const [result] = resultsOf(entries);
      expect(result!.output).toMatch(unknownOutcome);
      expect(result!.output).not.toMatch(/not run/);
    }
  });
});

describe("which decisions answer which request", () => {
  const unknown = {
    rule: { source: "unknown_outcome" as const, tool: "*", pattern: null, action: "ask" as const },
  };
  const approval = {
    rule: { source: "builtin" as const, tool: null, pattern: null, action: "ask" as const },
  };

  it("takes retry/skip/done for an unknown outcome and allow/deny for an approval, refusing the rest", () => {
    for (const decision of ["retry", "skip", "done"] as const) {
      expect(answerProblem(unknown, { decision })).toBeNull();
      expect(answerProblem(approval, { decision })).toMatch(/answer "allow" or "deny"/);
    }
    for (const decision of ["allow", "deny"] as const) {
      expect(answerProblem(approval, { decision })).toBeNull();
      expect(answerProblem(unknown, { decision })).toMatch(/answer "retry", "skip" or "done"/);
    }
    expect(answerProblem(unknown, { decision: "retry", remember: true })).toMatch(/remember/);
  });
});
