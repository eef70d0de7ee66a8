import { describe, expect, it } from "vitest";
import { extendPreview, previewOf, truncateScalars } from "../../../src/daemon/history/preview.js";
import { projectEntry } from "../../../src/daemon/history/project-history.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { assistantMessage, reasoning, toolCall, toolResult, userMessage } from "../../../src/model/items.js";
import { placeLog, sessionStart, ts0 } from "./log-fixtures.js";

describe("session preview", () => {
  it("counts Unicode scalar values, so 300 emoji keep 256 emoji and are truncated", () => {
    const text = "😀".repeat(300);
    const preview = previewOf(
      placeLog([sessionStart(), { kind: "user_input", ts: ts0, item: userMessage(text) }]),
    );
    expect(Array.from(preview.text)).toHaveLength(256);
    expect(preview.text).toBe("😀".repeat(256));
    expect(preview.truncated).toBe(true);
  });

  it("keeps exactly 256 emoji (512 UTF-16 units) whole and untruncated", () => {
    const text = "😀".repeat(256);
    const preview = previewOf(
      placeLog([sessionStart(), { kind: "user_input", ts: ts0, item: userMessage(text) }]),
    );
    expect(preview).toMatchObject({ text, truncated: false });
  });

  it("cuts mixed text at 256 scalars without splitting a surrogate pair", () => {
    const text = `${"a".repeat(255)}😀😀`;
    expect(truncateScalars(text, 256)).toEqual({ text: `${"a".repeat(255)}😀`, truncated: true });
    expect(truncateScalars("short", 256)).toEqual({ text: "short", truncated: false });
  });

  it("uses the first non-empty user text and counts distinct positions without continuations", () => {
    const log = placeLog([
      sessionStart(),
      { kind: "user_input", ts: ts0, item: userMessage("") },
      { kind: "user_input", ts: ts0, item: userMessage("first question") },
      { kind: "assistant_items", ts: ts0, items: [reasoning("r"), assistantMessage("a")] },
      { kind: "turn_end", ts: ts0, turn_count: 1 },
      { kind: "continuation", ts: ts0, input_id: "i9" },
      { kind: "user_input", ts: ts0, item: userMessage("second question") },
    ]);
    expect(previewOf(log)).toEqual({ text: "first question", transcript_count: 4, truncated: false });
  });

  it("counts a fork's copied history as one position and previews its first user text", () => {
    const log = placeLog([sessionStart([userMessage("copied"), assistantMessage("yes")])]);
    expect(previewOf(log)).toEqual({ text: "copied", transcript_count: 1, truncated: false });
  });

  it("is empty for a new session", () => {
    expect(previewOf(placeLog([sessionStart()]))).toEqual({
      text: "",
      transcript_count: 0,
      truncated: false,
    });
  });

  it("extends a stored preview with appended entries to the same result as a full recount", () => {
    const entries: LogEntry[] = [
      sessionStart(),
      { kind: "continuation", ts: ts0 },
      { kind: "assistant_items", ts: ts0, items: [assistantMessage("a")] },
      { kind: "user_input", ts: ts0, item: userMessage("later") },
      { kind: "user_input", ts: ts0, item: userMessage("even later") },
    ];
    const log = placeLog(entries);
    for (let cut = 0; cut <= log.length; cut++) {
      const extended = extendPreview(previewOf(log.slice(0, cut)), log.slice(cut));
      expect(extended, `cut at ${cut}`).toEqual(previewOf(log));
    }
  });
});

describe("a preview's count", () => {
  it("counts the positions whose projection has an entry besides a continuation, whatever their kind", () => {
    const log = placeLog([
      sessionStart(),
      { kind: "user_input", ts: ts0, item: userMessage("first") },
      { kind: "assistant_items", ts: ts0, items: [toolCall("c1", "read_file", "{}")] },
      { kind: "tool_results", ts: ts0, items: [toolResult("c1", "text")] },
      { kind: "assistant_items", ts: ts0, items: [] },
      { kind: "note", ts: ts0, item: userMessage("a note") },
      { kind: "hook_injected_items", ts: ts0, items: [userMessage("injected")] },
      { kind: "turn_end", ts: ts0, turn_count: 1 },
      { kind: "continuation", ts: ts0, input_id: "i1" },
      {
        kind: "compaction",
        ts: ts0,
        summary: "so far",
        first_kept_position: 3,
        before_tokens: 100,
        after_tokens: 10,
      },
      { kind: "context_excluded", ts: ts0, from_position: 1, to_position: 2, reason: "repair" },
    ] as LogEntry[]);
    const projected = log.filter((placed) =>
      projectEntry(placed).some((entry) => entry.kind !== "continuation"),
    ).length;
    expect(previewOf(log).transcript_count).toBe(projected);
    expect(previewOf(log).transcript_count).toBe(7);
  });
});
