import { describe, expect, it } from "vitest";
import type { LogEntry, PositionedEntry } from "../../src/log/entries.js";
import { buildChain } from "../../src/log/entry-hash.js";
import { LogCorruptError } from "../../src/log/errors.js";
import { copiedForkEntries } from "../../src/log/fork-entries.js";
import { assistantMessage, reasoning, toolCall, userMessage } from "../../src/model/items.js";

function placed(entries: LogEntry[]): PositionedEntry[] {
  return buildChain(null, entries).map((hashed, position) => ({ ...hashed, position }));
}

const start: LogEntry = {
  kind: "session_start",
  ts: 1,
  system_prompt: "s",
  config: {},
  history: [userMessage("old a"), assistantMessage("old b")],
  forked_from: { session_id: "grandparent", entry_hash: "a".repeat(64) },
};

describe("copiedForkEntries", () => {
  const log = placed([
    start,
    { kind: "user_input", ts: 2, item: userMessage("hi"), turn_id: "t1", input_id: "i1" },
    {
      kind: "assistant_items",
      ts: 3,
      items: [reasoning("hmm"), toolCall("c1", "read_file", "{}"), toolCall("c2", "list_files", "{}")],
      turn_id: "t1",
    },
    { kind: "continuation", ts: 4, turn_id: "t2", input_id: "i2" },
  ]);

  it("keeps only the first items of the entry at the cut", () => {
    const copies = copiedForkEntries("src", log, { position: 2, keepItems: 2 });
    expect(copies).toHaveLength(3);
    expect(copies[2]).toEqual({
      ...log[2]!.entry,
      items: [reasoning("hmm"), toolCall("c1", "read_file", "{}")],
    });
    expect(copies[1]).toEqual(log[1]!.entry);
  });

  it("replaces the source's own origin with the fork point, also when the cut is the session_start", () => {
    const copies = copiedForkEntries("src", log, { position: 0, keepItems: 1 });
    expect(copies).toEqual([
      {
        ...start,
        history: [userMessage("old a")],
        forked_from: { session_id: "src", entry_hash: log[0]!.hash, position: 0 },
      },
    ]);
  });

  it("copies continuations with their input and turn", () => {
    const copies = copiedForkEntries("src", log, { position: 3 });
    expect(copies[3]).toEqual({ kind: "continuation", ts: 4, turn_id: "t2", input_id: "i2" });
  });

  it("refuses a log that does not start with a session_start, and a cut it does not have", () => {
    const headless = placed([{ kind: "user_input", ts: 2, item: userMessage("hi") }]);
    expect(() => copiedForkEntries("src", headless, { position: 0 })).toThrow(LogCorruptError);
    expect(() => copiedForkEntries("src", log, { position: 4 })).toThrow(RangeError);
  });
});
