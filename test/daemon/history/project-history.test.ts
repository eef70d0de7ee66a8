import { describe, expect, it } from "vitest";
import {
  projectEntry,
  projectLog,
  projectsToHistory,
  type ToolNames,
} from "../../../src/daemon/history/project-history.js";
import type { LogEntry } from "../../../src/log/entries.js";
import {
  assistantMessage,
  reasoning,
  systemMessage,
  toolCall,
  toolResult,
  userMessage,
} from "../../../src/model/items.js";
import { placeLog, sessionStart, ts0 } from "./log-fixtures.js";

const at = (ms: number) => new Date(ts0 + ms).toISOString();

describe("history projection", () => {
  it("turns a user input into one user entry that is its own checkpoint", () => {
    const [entry] = placeLog([
      sessionStart(),
      { kind: "user_input", ts: ts0 + 1, item: userMessage("hello"), turn_id: "t1", input_id: "i1" },
    ]).slice(1);
    expect(projectEntry(entry!)).toEqual([
      {
        id: "1",
        position: 1,
        kind: "user",
        turn_id: "t1",
        input_id: "i1",
        created_at: at(1),
        content: [{ kind: "text", text: "hello" }],
        checkpoint_id: "1",
        tool: null,
      },
    ]);
  });

  it("turns a system-role input into a note and leaves turn and input ids null when absent", () => {
    const log = placeLog([sessionStart(), { kind: "user_input", ts: ts0, item: systemMessage("be terse") }]);
    expect(projectEntry(log[1]!)).toMatchObject([
      {
        id: "1",
        kind: "note",
        turn_id: null,
        input_id: null,
        checkpoint_id: "1",
        content: [{ kind: "text", text: "be terse" }],
      },
    ]);
  });

  it("turns assistant items into thinking, assistant and tool_call entries in order with k-suffixed ids", () => {
    const log = placeLog([
      sessionStart(),
      {
        kind: "assistant_items",
        ts: ts0 + 2,
        turn_id: "t1",
        items: [
          reasoning("let me think"),
          assistantMessage("I will look"),
          toolCall("call-1", "read_file", '{"path":"a.txt"}'),
          toolCall("call-2", "shell", "not json {"),
        ],
      },
    ]);
    const projected = projectEntry(log[1]!);
    expect(projected.map((e) => [e.id, e.kind, e.checkpoint_id, e.input_id, e.turn_id])).toEqual([
      ["1-0", "thinking", null, null, "t1"],
      ["1-1", "assistant", "1-1", null, "t1"],
      ["1-2", "tool_call", "1-2", null, "t1"],
      ["1-3", "tool_call", "1-3", null, "t1"],
    ]);
    expect(projected[0]!.content).toEqual([{ kind: "text", text: "let me think" }]);
    expect(projected[1]!.content).toEqual([{ kind: "text", text: "I will look" }]);
    expect(projected[2]!.content).toEqual([{ kind: "json", field: "arguments", value: { path: "a.txt" } }]);
    expect(projected[2]!.tool).toEqual({ name: "read_file", tool_call_id: "call-1" });
    expect(projected[3]!.content).toEqual([{ kind: "json", field: "arguments", value: "not json {" }]);
  });

  it("shows a reasoning summary when the text is empty, and no text for redacted or empty reasoning", () => {
    const log = placeLog([
      sessionStart(),
      {
        kind: "assistant_items",
        ts: ts0,
        items: [
          reasoning("", { summary: ["first", "second"] }),
          reasoning("", { redacted: true, encrypted_content: "opaque" }),
          reasoning("hidden?", { redacted: true }),
          reasoning(""),
        ],
      },
    ]);
    expect(projectEntry(log[1]!).map((e) => [e.kind, e.content])).toEqual([
      ["thinking", [{ kind: "text", text: "first\n\nsecond" }]],
      ["thinking", []],
      ["thinking", []],
      ["thinking", []],
    ]);
  });

  it("gives thinking entries, and only them, how long the model thought (null when the log does not say)", () => {
    const log = placeLog([
      sessionStart(),
      {
        kind: "assistant_items",
        ts: ts0,
        items: [
          reasoning("timed", { duration_ms: 1250 }),
          reasoning("from an older log"),
          assistantMessage("hi"),
        ],
      },
    ]);
    const entries = projectEntry(log[1]!);
    expect(entries.map((entry) => entry.thinking_duration_ms)).toEqual([1250, null, undefined]);
    expect(entries[2]).not.toHaveProperty("thinking_duration_ms");
  });

  it("marks the entries of an interrupted answer, and only those, interrupted", () => {
    const log = placeLog([
      sessionStart(),
      {
        kind: "assistant_items",
        ts: ts0,
        items: [reasoning("hmm"), assistantMessage("Half")],
        interrupted: true,
      },
      { kind: "assistant_items", ts: ts0, items: [assistantMessage("Whole")] },
    ]);
    const entries = projectLog(log);
    expect(entries.map((entry) => [entry.kind, entry.interrupted])).toEqual([
      ["thinking", true],
      ["assistant", true],
      ["assistant", undefined],
    ]);
    expect(entries[2]).not.toHaveProperty("interrupted");
    expect(entries[1]!.content).toEqual([{ kind: "text", text: "Half" }]);
  });

  it("names each tool result after its call earlier in the log and marks errors", () => {
    const log = placeLog([
      sessionStart(),
      {
        kind: "assistant_items",
        ts: ts0,
        items: [toolCall("c1", "read_file", "{}"), toolCall("c2", "shell", "{}")],
      },
      { kind: "turn_end", ts: ts0, turn_count: 1 },
      {
        kind: "tool_results",
        ts: ts0 + 3,
        turn_id: "t1",
        items: [toolResult("c1", "file body"), toolResult("c2", "exit 1", true), toolResult("c9", "orphan")],
      },
    ]);
    const results = projectLog(log).filter((e) => e.kind === "tool_result");
    expect(results).toEqual([
      {
        id: "3-0",
        position: 3,
        kind: "tool_result",
        turn_id: "t1",
        input_id: null,
        created_at: at(3),
        content: [{ kind: "json", field: "result", value: "file body" }],
        checkpoint_id: "3-0",
        tool: { name: "read_file", tool_call_id: "c1", is_error: false },
      },
      expect.objectContaining({ id: "3-1", tool: { name: "shell", tool_call_id: "c2", is_error: true } }),
      expect.objectContaining({ id: "3-2", tool: { name: "", tool_call_id: "c9", is_error: false } }),
    ]);
  });

  it("lets a caller project entry by entry with one tool-name map", () => {
    const log = placeLog([
      sessionStart(),
      { kind: "assistant_items", ts: ts0, items: [toolCall("c1", "grep", "{}")] },
      { kind: "tool_results", ts: ts0, items: [toolResult("c1", "hit")] },
    ]);
    const names: ToolNames = new Map();
    projectEntry(log[1]!, names);
    expect(projectEntry(log[2]!, names)[0]?.tool?.name).toBe("grep");
    expect(projectEntry(log[2]!)[0]?.tool?.name).toBe("");
  });

  it("shows hook-injected messages and runtime notes as notes", () => {
    const log = placeLog([
      sessionStart(),
      {
        kind: "hook_injected_items",
        ts: ts0,
        turn_id: "t1",
        items: [systemMessage("reminder"), userMessage("injected")],
      },
      {
        kind: "note",
        ts: ts0,
        origin: "daemon restart",
        item: systemMessage("the daemon restarted"),
        turn_id: "t2",
        input_id: "i2",
      },
    ]);
    expect(projectLog(log).map((e) => [e.id, e.kind, e.checkpoint_id, e.content])).toEqual([
      ["1-0", "note", "1-0", [{ kind: "text", text: "reminder" }]],
      ["1-1", "note", "1-1", [{ kind: "text", text: "injected" }]],
      ["2", "note", "2", [{ kind: "text", text: "the daemon restarted" }]],
    ]);
  });

  it("turns a continuation marker into a continuation entry named after its input, with no checkpoint", () => {
    const log = placeLog([
      sessionStart(),
      { kind: "continuation", ts: ts0 + 5, turn_id: "t3", input_id: "in-7" },
    ]);
    expect(projectEntry(log[1]!)).toEqual([
      {
        id: "continue-in-7",
        position: 1,
        kind: "continuation",
        turn_id: "t3",
        input_id: "in-7",
        created_at: at(5),
        content: [],
        checkpoint_id: null,
        tool: null,
      },
    ]);
  });

  it("projects a fork's copied history at position 0 like live entries", () => {
    const log = placeLog([
      sessionStart([
        userMessage("q"),
        reasoning("hmm"),
        toolCall("c1", "ls", '{"dir":"."}'),
        toolResult("c1", "a b"),
        assistantMessage("done"),
      ]),
      { kind: "tool_results", ts: ts0, items: [toolResult("c1", "again")] },
    ]);
    const projected = projectLog(log);
    expect(projected.map((e) => [e.id, e.kind, e.checkpoint_id, e.turn_id])).toEqual([
      ["0-0", "user", "0-0", null],
      ["0-1", "thinking", null, null],
      ["0-2", "tool_call", "0-2", null],
      ["0-3", "tool_result", "0-3", null],
      ["0-4", "assistant", "0-4", null],
      ["1", "tool_result", "1", null],
    ]);
    expect(projected[3]!.tool).toEqual({ name: "ls", tool_call_id: "c1", is_error: false });
    expect(projected[5]!.tool?.name).toBe("ls");
  });

  it("gives a fork's single copied item the plain position id", () => {
    expect(projectLog(placeLog([sessionStart([userMessage("only")])])).map((e) => e.id)).toEqual(["0"]);
  });

  it("projects nothing for bookkeeping entries and an empty session start", () => {
    const bookkeeping: LogEntry[] = [
      sessionStart(),
      { kind: "turn_end", ts: ts0, turn_count: 1 },
      { kind: "run_outcome", ts: ts0, outcome: { type: "finished" }, interrupted: false },
      { kind: "config_changed", ts: ts0, config: { temperature: 0 } },
      { kind: "locked", ts: ts0, locked_prefix_len: 3 },
      { kind: "cache_unlocked", ts: ts0 },
      {
        kind: "llm_usage",
        ts: ts0,
        history_len: 2,
        input_total_tokens: 10,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        output_tokens: 3,
      },
      { kind: "assistant_items", ts: ts0, items: [] },
    ];
    const log = placeLog(bookkeeping);
    expect(projectLog(log)).toEqual([]);
    expect(log.filter((p) => projectsToHistory(p.entry))).toEqual([]);
  });

  it("shows an exclusion from the model's context as a context_excluded entry, with no checkpoint", () => {
    const log = placeLog([
      sessionStart(),
      { kind: "user_input", ts: ts0 + 1, item: userMessage("a"), turn_id: "t1" },
      { kind: "assistant_items", ts: ts0 + 2, items: [assistantMessage("b")], turn_id: "t1" },
      { kind: "context_excluded", ts: ts0 + 3, from_position: 1, to_position: 2, reason: "repair" },
      {
        kind: "context_excluded",
        ts: ts0 + 4,
        from_position: 2,
        to_position: 2,
        reason: "refusal",
        detail: "the request violates the policy",
      },
    ]);
    expect(projectEntry(log[3]!)).toEqual([
      {
        id: "3",
        position: 3,
        kind: "context_excluded",
        turn_id: null,
        input_id: null,
        created_at: at(3),
        content: [
          { kind: "text", text: "Entries 1–2 are no longer sent to the model: a repair asked for it." },
        ],
        checkpoint_id: null,
        tool: null,
        excluded: { from_position: 1, to_position: 2, reason: "repair" },
      },
    ]);
    expect(projectEntry(log[4]!)).toMatchObject([
      {
        kind: "context_excluded",
        content: [
          {
            kind: "text",
            text: "Entry 2 is no longer sent to the model: the model refused that turn (the request violates the policy).",
          },
        ],
        excluded: { from_position: 2, to_position: 2, reason: "refusal" },
      },
    ]);
    expect(projectsToHistory(log[3]!.entry)).toBe(true);
  });

  it("agrees with projectsToHistory on every kind", () => {
    const log = placeLog([
      sessionStart([userMessage("x")]),
      { kind: "user_input", ts: ts0, item: userMessage("a") },
      { kind: "assistant_items", ts: ts0, items: [assistantMessage("b")] },
      { kind: "tool_results", ts: ts0, items: [toolResult("c", "d")] },
      { kind: "hook_injected_items", ts: ts0, items: [systemMessage("e")] },
      { kind: "note", ts: ts0, origin: "o", item: systemMessage("f") },
      { kind: "continuation", ts: ts0 },
      { kind: "turn_end", ts: ts0, turn_count: 1 },
      { kind: "context_excluded", ts: ts0, from_position: 1, to_position: 1, reason: "repair" },
    ]);
    for (const placed of log) {
      expect(projectEntry(placed).length > 0, placed.entry.kind).toBe(projectsToHistory(placed.entry));
    }
  });

  it("keeps one text part per message part, refusals included", () => {
    const log = placeLog([
      sessionStart(),
      {
        kind: "assistant_items",
        ts: ts0,
        items: [
          {
            type: "message",
            role: "assistant",
            content: [
              { type: "text", text: "part one" },
              { type: "refusal", refusal: "cannot" },
            ],
          },
        ],
      },
    ]);
    expect(projectEntry(log[1]!)[0]!.content).toEqual([
      { kind: "text", text: "part one" },
      { kind: "text", text: "cannot" },
    ]);
  });

  it("gives every entry of a log a distinct id", () => {
    const log = placeLog([
      sessionStart([userMessage("x"), assistantMessage("y")]),
      { kind: "user_input", ts: ts0, item: userMessage("a"), input_id: "i1" },
      { kind: "continuation", ts: ts0, input_id: "i2" },
      { kind: "assistant_items", ts: ts0, items: [reasoning("r"), assistantMessage("b")] },
      { kind: "assistant_items", ts: ts0, items: [assistantMessage("c")] },
    ]);
    const ids = projectLog(log).map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
