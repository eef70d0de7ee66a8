/** What a turn's end commits, built from the session's state without storage. */
import { describe, expect, it } from "vitest";
import { turnEndEntries } from "../../../src/daemon/turn/turn-end.js";
import { endingOfError, type TurnEnding } from "../../../src/daemon/turn/turn-ending.js";
import {
  assistantMessage,
  type Item,
  reasoning,
  toolCall,
  toolResult,
  userMessage,
} from "../../../src/model/items.js";
import { WorkerError } from "../../../src/worker/index.js";
import { denyingGate } from "./denying-gate.js";

function ending(state: TurnEnding["state"]): TurnEnding {
  return {
    state,
    outcome: state === "failed" ? { type: "error", message: "boom" } : { type: "finished" },
    interrupted: state !== "completed",
    requestCount: 2,
    usage: {},
  };
}

const openCall: Item[] = [userMessage("list"), toolCall("c1", "list_files", "{}")];

/** The entries of turn t1's end at time 9, ended `state` with `history`, with the calls `waiting` for an answer. */
function endEntries(state: TurnEnding["state"], history: readonly Item[], gate = denyingGate([])) {
  return turnEndEntries({ turnId: "t1", ending: ending(state), now: 9, gate, history });
}

describe("turnEndEntries", () => {
  it("ends a completed turn with turn_end and run_outcome only, asking the gate nothing", () => {
    const approvals = denyingGate([]);
    expect(endEntries("completed", [], approvals)).toEqual([
      { kind: "turn_end", ts: 9, turn_count: 2 },
      { kind: "run_outcome", ts: 9, outcome: { type: "finished" }, interrupted: false },
    ]);
    expect(approvals.asked).toEqual([]);
  });

  it("closes the open calls of an interrupted turn as interrupted", () => {
    const entries = endEntries("interrupted", openCall);
    const interrupted = "Tool call interrupted by the user before it finished; its outcome is unknown.";
    expect(entries[0]).toMatchObject({
      kind: "tool_results",
      turn_id: "t1",
      items: [toolResult("c1", interrupted, true)],
    });
    expect(entries.slice(1).map((entry) => entry.kind)).toEqual(["turn_end", "run_outcome"]);
  });

  it("logs an interrupted answer's streamed part first, marked interrupted, before turn_end", () => {
    const partial = [reasoning("hmm"), assistantMessage("Half a sent")];
    const entries = turnEndEntries({
      turnId: "t1",
      ending: { ...ending("interrupted"), partial },
      now: 9,
      gate: denyingGate([]),
      history: [userMessage("talk")],
    });
    expect(entries).toEqual([
      { kind: "assistant_items", ts: 9, items: partial, turn_id: "t1", interrupted: true },
      { kind: "turn_end", ts: 9, turn_count: 2 },
      { kind: "run_outcome", ts: 9, outcome: { type: "finished" }, interrupted: true },
    ]);
  });

  it("keeps a cancelled answer's streamed part for a user's interrupt only", () => {
    const error = WorkerError.cancelledMidAnswer(undefined, [assistantMessage("Half")]);
    const session = { id: "s", historyItems: 1 };
    const interrupt = endingOfError(error, 1, {}, { cause: "interrupted", detail: "" }, session);
    expect(interrupt).toMatchObject({ state: "interrupted", partial: [assistantMessage("Half")] });
    for (const cause of ["shutdown", "crashed"] as const) {
      const stopped = endingOfError(error, 1, {}, { cause, detail: "" }, session);
      expect(stopped.state).toBe("failed");
      expect(stopped.partial).toBeUndefined();
    }
  });

  it("gives an open call whose result the log implies (a denied one) that result, and the others an unknown outcome", () => {
    const history: Item[] = [
      userMessage("two"),
      toolCall("c1", "run_command", "{}"),
      toolCall("c2", "list_files", "{}"),
    ];
    const denied = toolResult("c1", "The user denied this tool call; it was not run.", true);
    const entries = turnEndEntries({
      turnId: "t1",
      ending: ending("interrupted"),
      now: 9,
      gate: denyingGate([]),
      history,
      known: (call) => (call.call_id === "c1" ? denied : null),
    });
    expect(entries[0]).toMatchObject({
      kind: "tool_results",
      items: [
        denied,
        toolResult(
          "c2",
          "Tool call interrupted by the user before it finished; its outcome is unknown.",
          true,
        ),
      ],
    });
  });

  it("closes the open calls of a failed turn as failed, and logs its error outcome", () => {
    const entries = endEntries("failed", openCall);
    const failed = "Tool call not completed because the turn failed; its outcome is unknown.";
    expect(entries[0]).toMatchObject({ kind: "tool_results", items: [toolResult("c1", failed, true)] });
    expect(entries[2]).toEqual({
      kind: "run_outcome",
      ts: 9,
      outcome: { type: "error", message: "boom" },
      interrupted: true,
    });
  });

  it("denies the calls that wait for an answer instead of closing them, by interrupt or by the turn's end", () => {
    const interrupted = denyingGate(["c1"]);
    const entries = endEntries("interrupted", openCall, interrupted);
    expect(interrupted.asked).toEqual(["interrupt"]);
    expect(entries.map((entry) => entry.kind)).toEqual(["approval_resolved", "turn_end", "run_outcome"]);
    const failed = denyingGate(["c1"]);
    endEntries("failed", openCall, failed);
    expect(failed.asked).toEqual(["turn_end"]);
  });

  it("leaves a completed turn's history alone even with a call open", () => {
    const entries = endEntries("completed", openCall, denyingGate(["c1"]));
    expect(entries.map((entry) => entry.kind)).toEqual(["turn_end", "run_outcome"]);
  });
});
