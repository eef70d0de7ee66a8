/** What a turn's start commits, built from the session's state without storage. */
import { describe, expect, it } from "vitest";
import type { InputRow } from "../../../src/daemon/storage/inputs-table.js";
import {
  deliveredInputs,
  receiptsOf,
  type StartedTurn,
  turnStartEntries,
  turnStartWrites,
} from "../../../src/daemon/turn/turn-start.js";
import { type Item, toolCall, toolResult, userMessage } from "../../../src/model/items.js";
import { denyingGate } from "./denying-gate.js";

function input(id: string, order: number, intent: InputRow["intent"]): InputRow {
  return {
    id,
    session: "s1",
    kind: (intent as { kind: string }).kind,
    intent,
    clientId: null,
    sentBy: null,
    sentFrom: null,
    acceptedAt: 100 + order,
    acceptanceOrder: order,
    delivery: "pending",
    transcriptPosition: null,
    turnId: null,
  };
}

const hello = input("i1", 1, { kind: "message", text: "hello" });
const more = input("i2", 2, { kind: "continue" });
const openCall: Item[] = [userMessage("list"), toolCall("c1", "list_files", "{}")];

/** The entries of turn t1's start at time 5, delivering `pending`, with the calls `waiting` for an answer. */
function startEntries(pending: readonly InputRow[], history: readonly Item[], gate = denyingGate([])) {
  return turnStartEntries({ turnId: "t1", now: 5, pending, gate, history });
}

describe("turnStartEntries", () => {
  it("gives one entry per input, a message as user input and a continue as a continuation", () => {
    expect(startEntries([hello, more], [])).toEqual([
      { kind: "user_input", ts: 5, item: userMessage("hello"), turn_id: "t1", input_id: "i1" },
      { kind: "continuation", ts: 5, turn_id: "t1", input_id: "i2" },
    ]);
  });

  it("denies a call that waits for an answer when the start delivers inputs", () => {
    const waiting = denyingGate(["c1"]);
    const entries = startEntries([hello], openCall, waiting);
    expect(waiting.asked).toEqual(["turn_end"]);
    expect(entries.map((entry) => entry.kind)).toEqual(["approval_resolved", "user_input"]);
  });

  it("leaves a waiting call open when the start has no inputs: the turn waits for its answer", () => {
    const waiting = denyingGate(["c1"]);
    expect(startEntries([], openCall, waiting)).toEqual([]);
    expect(waiting.asked).toEqual([]);
  });

  it("closes a stale open call that waits for nothing as failed before the inputs", () => {
    const entries = startEntries([hello], openCall);
    const failed = "Tool call not completed because the turn failed; its outcome is unknown.";
    expect(entries[0]).toMatchObject({
      kind: "tool_results",
      turn_id: "t1",
      items: [toolResult("c1", failed, true)],
    });
    expect(entries[1]?.kind).toBe("user_input");
  });

  it("closes nothing when every call has its result", () => {
    expect(startEntries([], [...openCall, toolResult("c1", "a.txt")])).toEqual([]);
  });
});

describe("deliveredInputs", () => {
  it("gives the inputs consecutive positions after the entries that close calls", () => {
    const entries = startEntries([hello, more], openCall);
    const placed = entries.map((entry, i) => ({ entry, position: 10 + i }));
    expect(deliveredInputs([hello, more], entries, placed)).toEqual([
      { row: hello, transcriptPosition: 11 },
      { row: more, transcriptPosition: 12 },
    ]);
  });
});

describe("a started turn's writes and receipts", () => {
  const started: StartedTurn = {
    turnId: "t1",
    inputIds: ["i1", "i2"],
    entries: [],
    startedAt: 50,
    delivered: [
      { row: hello, transcriptPosition: 3 },
      { row: more, transcriptPosition: 4 },
    ],
  };

  it("write the turn row and mark each input committed at its position", () => {
    expect(turnStartWrites(started)).toEqual({
      startTurn: { id: "t1", inputIds: ["i1", "i2"], startedAt: 50 },
      committedInputs: {
        turnId: "t1",
        inputs: [
          { id: "i1", transcriptPosition: 3 },
          { id: "i2", transcriptPosition: 4 },
        ],
      },
    });
  });

  it("show each input delivered by the turn in the state it is in", () => {
    const [first, second] = receiptsOf(started, "completed", 90);
    expect(first).toMatchObject({
      id: "i1",
      acceptance_order: 1,
      delivery: "committed",
      transcript_position: 3,
      turn: { state: "completed" },
    });
    expect(second).toMatchObject({ id: "i2", transcript_position: 4 });
    expect(receiptsOf(started, "running", null)[0]).toMatchObject({ turn: { state: "running" } });
  });
});
