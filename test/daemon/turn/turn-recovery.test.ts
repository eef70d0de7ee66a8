/**
 * How a turn a restart cut short is recovered, as a pure function of the session's replayed
 * log: examples, and properties over generated histories (a batch of calls left open, each
 * with its own answer or none, replayed through the log's own `applyEntry`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  abandonedTurnEntries,
  recoverCutTurn,
  restartNoteText,
} from "../../../src/daemon/turn/turn-recovery.js";
import { applyEntry, emptyState } from "../../../src/log/collect-state.js";
import type { LogEntry } from "../../../src/log/entries.js";
import type { RestoredState } from "../../../src/log/restored-state.js";
import type { ApprovalResolver } from "../../../src/model/approval-policy.js";
import { type ToolResultItem, toolCall, toolResult, userMessage } from "../../../src/model/items.js";

const workspace = "/work/space";
const unknownOutcome = /outcome is unknown/;
/** What a result says of a call that certainly did not run. */
const notRun = /not run|declined/;

describe("abandonedTurnEntries", () => {
  it("closes the calls in flight with an unknown outcome, then adds the restart note", () => {
    const history = [userMessage("list"), toolCall("c1", "list_files", "{}")];
    const entries = abandonedTurnEntries("t1", 9, history);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      kind: "tool_results",
      ts: 9,
      turn_id: "t1",
      items: [{ call_id: "c1" }],
    });
    expect(entries[1]).toEqual({
      kind: "note",
      ts: 9,
      origin: "daemon_restart",
      item: userMessage(restartNoteText),
      turn_id: "t1",
    });
  });

  it("gives only the note when no call was in flight", () => {
    const history = [userMessage("list"), toolCall("c1", "list_files", "{}"), toolResult("c1", "a.txt")];
    expect(abandonedTurnEntries("t1", 9, history).map((entry) => entry.kind)).toEqual(["note"]);
  });
});

/** One call of the batch a crash left open, and what the log says of it. */
interface CallSpec {
  tool: "run_command" | "write_file" | "read_file" | "ask_user" | "fs__read";
  /** `object`: valid arguments; the others are refused before anyone is asked. */
  args: "object" | "not_json" | "not_object";
  /** A file tool's path outside the workspace (denied whatever the policy says; never asked). */
  outside: boolean;
  /** ask_user: whether it has a question (one without is refused, never asked). */
  question: boolean;
  /** What the log holds about its approval: nothing (allowed by the policy), a request, an answer. */
  approval:
    | { kind: "none" }
    | { kind: "pending" }
    | { kind: "answered"; decision: "allow" | "deny"; by: ApprovalResolver; message: string | null };
}

const fileTools = new Set(["write_file", "read_file"]);

/** A call spec the daemon could have logged (requests only for calls it asks about). */
const callSpec: fc.Arbitrary<CallSpec> = fc
  .record({
    tool: fc.constantFrom("run_command", "write_file", "read_file", "ask_user", "fs__read"),
    args: fc.constantFrom("object", "object", "object", "not_json", "not_object"),
    outside: fc.boolean(),
    question: fc.boolean(),
    approval: fc.oneof(
      fc.constant({ kind: "none" as const }),
      fc.constant({ kind: "pending" as const }),
      fc.record({
        kind: fc.constant("answered" as const),
        decision: fc.constantFrom("allow" as const, "deny" as const),
        by: fc.constantFrom<ApprovalResolver>("client", "rule", "interrupt", "turn_end"),
        message: fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: null }),
      }),
    ),
  })
  .map((spec): CallSpec => {
    const outside = fileTools.has(spec.tool) && spec.outside;
    const question = spec.tool === "ask_user" && spec.question;
    // Refused calls are never asked; an ask_user with a question always is.
    const refused = spec.args !== "object" || outside || (spec.tool === "ask_user" && !question);
    if (refused) return { ...spec, outside, question, approval: { kind: "none" } };
    if (spec.tool === "ask_user" && spec.approval.kind === "none") {
      return { ...spec, outside, question, approval: { kind: "pending" } };
    }
    return { ...spec, outside, question };
  });

function argumentsOf(spec: CallSpec): string {
  switch (spec.args) {
    case "not_json":
      return "{oops";
    case "not_object":
      return "[1,2]";
    case "object":
      if (spec.tool === "ask_user") return JSON.stringify(spec.question ? { question: "which?" } : {});
      if (spec.tool === "run_command") return JSON.stringify({ command: "make" });
      if (fileTools.has(spec.tool))
        return JSON.stringify({ path: spec.outside ? "../../etc/passwd" : "src/a.txt" });
      return JSON.stringify({ path: "x" });
    default: {
      const unknown: never = spec.args;
      throw new Error(`unknown args ${String(unknown)}`);
    }
  }
}

/** The log of a session whose last model response made `batch`, with `earlier` calls answered before it. */
function logOf(batch: readonly CallSpec[], earlier: number): LogEntry[] {
  const entries: LogEntry[] = [
    { kind: "session_start", ts: 1, system_prompt: null, config: {}, history: [] },
    { kind: "user_input", ts: 2, item: userMessage("go"), turn_id: "t1" },
  ];
  for (let i = 0; i < earlier; i++) {
    entries.push({ kind: "assistant_items", ts: 3, items: [toolCall(`e${i}`, "read_file", '{"path":"a"}')] });
    entries.push({ kind: "tool_results", ts: 3, items: [toolResult(`e${i}`, "contents")], turn_id: "t1" });
  }
  const calls = batch.map((spec, i) => toolCall(`c${i}`, spec.tool, argumentsOf(spec)));
  entries.push({ kind: "assistant_items", ts: 4, items: calls, turn_id: "t1" });
  batch.forEach((spec, i) => {
    if (spec.approval.kind === "none") return;
    entries.push({
      kind: "approval_requested",
      ts: 4,
      call_id: `c${i}`,
      tool: spec.tool,
      rule: { source: "builtin", tool: null, pattern: null, action: "ask" },
      turn_id: "t1",
    });
  });
  batch.forEach((spec, i) => {
    if (spec.approval.kind !== "answered") return;
    const { decision, by, message } = spec.approval;
    entries.push({
      kind: "approval_resolved",
      ts: 5,
      call_id: `c${i}`,
      decision,
      by,
      ...(message === null ? {} : { message }),
      turn_id: "t1",
    });
  });
  return entries;
}

function replay(entries: readonly LogEntry[], state: RestoredState = emptyState()): RestoredState {
  for (const entry of entries) applyEntry(state, entry);
  return state;
}

/** Whether the call may have run before the crash (only then is its outcome unknown). */
function mayHaveRun(spec: CallSpec): boolean {
  if (spec.args !== "object" || spec.outside || spec.tool === "ask_user") return false;
  if (spec.approval.kind === "none") return true;
  return spec.approval.kind === "answered" && spec.approval.decision === "allow";
}

function resultsOf(entries: readonly LogEntry[]): ToolResultItem[] {
  return entries
    .flatMap((entry) => (entry.kind === "tool_results" ? entry.items : []))
    .filter((item): item is ToolResultItem => item.type === "tool_result");
}

/** Checks that hold for the result of `spec`'s call, whatever else happened. */
function checkKnownResult(spec: CallSpec, result: ToolResultItem): void {
  if (spec.approval.kind === "answered" && spec.approval.decision === "deny") {
    expect(result.output).toMatch(notRun);
    expect(result.output).not.toMatch(unknownOutcome);
    if (spec.approval.by === "client" && spec.approval.message !== null)
      expect(result.output).toContain(spec.approval.message);
  }
  if (spec.tool === "ask_user" && spec.approval.kind === "answered" && spec.approval.decision === "allow") {
    expect(result).toEqual(toolResult(result.call_id, spec.approval.message ?? "", false));
  }
  if (spec.args !== "object" || spec.outside) expect(result.output).toMatch(notRun);
}

const batches = fc.record({
  batch: fc.array(callSpec, { minLength: 1, maxLength: 4 }),
  earlier: fc.integer({ min: 0, max: 2 }),
});

describe("recoverCutTurn", () => {
  it("leaves a cut batch's task calls open for the new turn to run again, closing only the others, with no note", () => {
    const state = replay([
      { kind: "session_start", ts: 1, system_prompt: null, config: {}, history: [] },
      { kind: "user_input", ts: 2, item: userMessage("delegate"), turn_id: "t1" },
      {
        kind: "assistant_items",
        ts: 3,
        items: [
          toolCall("a", "task", JSON.stringify({ agent: "general", prompt: "x" })),
          toolCall("b", "task", "not json"),
          toolCall("c", "run_command", JSON.stringify({ command: "make" })),
        ],
        turn_id: "t1",
      },
    ]);
    const recovery = recoverCutTurn({ id: "t1", interruptRequested: false }, state, workspace, 9);
    expect(recovery).toMatchObject({ state: "abandoned", continues: true });
    expect(recovery.entries).toHaveLength(1);
    const closed = recovery.entries[0] as { kind: string; items: ToolResultItem[] };
    expect(closed.kind).toBe("tool_results");
    // The task call with no object for arguments never ran: it is refused, not run again.
    expect(closed.items.map((item) => item.call_id)).toEqual(["b", "c"]);
    expect(closed.items[1]!.output).toMatch(unknownOutcome);
  });

  it("gives a call the user denied their denial and message, not an unknown outcome (the crash right after a deny)", () => {
    const state = replay(
      logOf(
        [
          {
            tool: "run_command",
            args: "object",
            outside: false,
            question: false,
            approval: { kind: "answered", decision: "deny", by: "client", message: "use the Makefile" },
          },
        ],
        0,
      ),
    );
    const recovery = recoverCutTurn({ id: "t1", interruptRequested: false }, state, workspace, 9);
    expect(recovery).toMatchObject({ state: "abandoned", continues: true });
    expect(recovery.entries[0]).toEqual({
      kind: "tool_results",
      ts: 9,
      items: [
        toolResult(
          "c0",
          "The user denied this tool call; it was not run. Their message: use the Makefile",
          true,
        ),
      ],
      turn_id: "t1",
    });
    expect(recovery.entries[1]).toMatchObject({ kind: "note", origin: "daemon_restart" });
  });

  it("ends an interrupted turn interrupted: its waiting calls denied by the interrupt, no note, no new turn", () => {
    const run: CallSpec = {
      tool: "run_command",
      args: "object",
      outside: false,
      question: false,
      approval: { kind: "pending" },
    };
    const state = replay(logOf([run], 0));
    const recovery = recoverCutTurn({ id: "t1", interruptRequested: true }, state, workspace, 9);
    expect(recovery.state).toBe("interrupted");
    expect(recovery.continues).toBe(false);
    expect(recovery.entries).toEqual([
      { kind: "approval_resolved", ts: 9, call_id: "c0", decision: "deny", by: "interrupt", turn_id: "t1" },
      {
        kind: "tool_results",
        ts: 9,
        items: [
          toolResult(
            "c0",
            "Tool call not run: the user interrupted the turn while it waited for approval.",
            true,
          ),
        ],
        turn_id: "t1",
      },
      { kind: "turn_end", ts: 9, turn_count: 0 },
      { kind: "run_outcome", ts: 9, outcome: { type: "error", message: "Cancelled" }, interrupted: true },
    ]);
  });

  it("recovers every history: one result per open call, in order; an unknown outcome only for a call that may have run", () => {
    fc.assert(
      fc.property(batches, fc.boolean(), ({ batch, earlier }, interruptRequested) => {
        const state = replay(logOf(batch, earlier));
        const before = structuredClone(state);
        const waiting = batch.some((spec) => spec.approval.kind === "pending");
        const recovery = recoverCutTurn({ id: "t1", interruptRequested }, state, workspace, 9);
        // Pure: the state it was given is unchanged.
        expect(state).toEqual(before);

        if (!interruptRequested && waiting) {
          // Nothing of the batch started: the calls stay open and the new turn waits again.
          expect(recovery).toEqual({ state: "abandoned", entries: [], continues: true });
          return;
        }
        const results = resultsOf(recovery.entries);
        expect(results.map((result) => result.call_id)).toEqual(batch.map((_, i) => `c${i}`));
        batch.forEach((spec, i) => {
          const result = results[i]!;
          expect(result.is_error || spec.tool === "ask_user").toBe(true);
          checkKnownResult(spec, result);
          // With calls waiting nothing of the batch ran, so nothing is of unknown outcome.
          const unknown = mayHaveRun(spec) && !waiting;
          expect(unknownOutcome.test(result.output)).toBe(unknown);
        });

        const after = replay(recovery.entries, structuredClone(state));
        expect(after.pending_approvals).toEqual([]);
        const kinds = recovery.entries.map((entry) => entry.kind);
        if (interruptRequested) {
          expect(recovery).toMatchObject({ state: "interrupted", continues: false });
          expect(kinds).not.toContain("note");
          expect(kinds.slice(-2)).toEqual(["turn_end", "run_outcome"]);
          expect(after.last_run_interrupted).toBe(true);
          expect(after.request_count).toBe(state.request_count);
          const denied = recovery.entries.filter((entry) => entry.kind === "approval_resolved");
          expect(denied.map((entry) => entry.call_id)).toEqual(
            state.pending_approvals.map((pending) => pending.call_id),
          );
        } else {
          expect(recovery).toMatchObject({ state: "abandoned", continues: true });
          expect(kinds).toEqual(["tool_results", "note"]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("leaves the calls of earlier batches alone: a history without open calls gets only the note, or only the end", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.boolean(), (earlier, interruptRequested) => {
        const entries = logOf([], earlier).slice(0, -1);
        const state = replay(entries);
        const recovery = recoverCutTurn({ id: "t1", interruptRequested }, state, workspace, 9);
        expect(resultsOf(recovery.entries)).toEqual([]);
        expect(recovery.entries.map((entry) => entry.kind)).toEqual(
          interruptRequested ? ["turn_end", "run_outcome"] : ["note"],
        );
      }),
    );
  });
});
