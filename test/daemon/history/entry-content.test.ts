import { describe, expect, it } from "vitest";
import type { ContentSlice } from "../../../src/api/history.js";
import { EntryContentUnknownError, TextOffsetError } from "../../../src/daemon/errors.js";
import { readEntryContent } from "../../../src/daemon/history/entry-content.js";
import { assistantMessage, reasoning, toolCall, toolResult, userMessage } from "../../../src/model/items.js";
import { placeLog, sessionStart, ts0 } from "./log-fixtures.js";

const answer = `${"line with é and 😀\n".repeat(500)}end`;
const args = { path: "notes.md", content: "x".repeat(3000) };
const log = placeLog([
  sessionStart(),
  { kind: "user_input", ts: ts0, item: userMessage("hello"), input_id: "in-1" },
  {
    kind: "assistant_items",
    ts: ts0,
    items: [reasoning("hmm"), assistantMessage(answer), toolCall("c1", "write_file", JSON.stringify(args))],
  },
  { kind: "tool_results", ts: ts0, items: [toolResult("c1", "ok\n".repeat(1000))] },
  { kind: "continuation", ts: ts0, input_id: "in-2" },
]);

/** The whole content of a part, read slice by slice. */
function readAll(entryId: string, part: number, limit: number): { text: string; slices: ContentSlice[] } {
  const slices: ContentSlice[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const slice = readEntryContent(log, { sessionId: "s1", entryId, part, offset, limit });
    slices.push(slice);
    offset = slice.next_offset;
  }
  return { text: slices.map((slice) => slice.text).join(""), slices };
}

describe("entry content", () => {
  it("serves a text part whole in slices that follow next_offset to null", () => {
    const { text, slices } = readAll("2-1", 0, 1000);
    expect(text).toBe(answer);
    expect(slices.length).toBeGreaterThan(5);
    expect(slices[0]).toMatchObject({ entry_id: "2-1", part: 0, encoding: "text", offset: 0 });
    for (const slice of slices) expect(slice.bytes).toBe(Buffer.byteLength(answer));
  });

  it("serves parsed tool arguments as their JSON text and a tool result as its text", () => {
    const call = readAll("2-2", 0, 700);
    expect(call.slices[0]!.encoding).toBe("json");
    expect(JSON.parse(call.text)).toEqual(args);
    const result = readAll("3", 0, 700);
    expect(result.slices[0]!.encoding).toBe("text");
    expect(result.text).toBe("ok\n".repeat(1000));
  });

  it("answers an empty last slice for an offset at the end", () => {
    const bytes = Buffer.byteLength("hello");
    expect(
      readEntryContent(log, { sessionId: "s1", entryId: "1", part: 0, offset: bytes, limit: 10 }),
    ).toEqual({
      entry_id: "1",
      part: 0,
      encoding: "text",
      bytes,
      offset: bytes,
      next_offset: null,
      text: "",
    });
  });

  it("refuses an unknown entry, an unknown part, a continuation and a malformed id as unknown", () => {
    for (const [entryId, part] of [
      ["9", 0],
      ["2-7", 0],
      ["1", 1],
      ["continue-in-2", 0],
      ["01", 0],
      ["2-", 0],
      ["../1", 0],
    ] as const) {
      expect(() => readEntryContent(log, { sessionId: "s1", entryId, part, offset: 0, limit: 10 })).toThrow(
        EntryContentUnknownError,
      );
    }
  });

  it("refuses an offset inside a character", () => {
    expect(() =>
      readEntryContent(log, { sessionId: "s1", entryId: "2-1", part: 0, offset: 11, limit: 10 }),
    ).toThrow(TextOffsetError);
  });
});
