import { describe, expect, it } from "vitest";
import type { TruncatedPart } from "../../../src/api/history.js";
import { boundEntry, boundText, partContent } from "../../../src/daemon/history/bounded-entry.js";
import type { FullHistoryEntry } from "../../../src/daemon/history/history-entry.js";
import { projectEntry } from "../../../src/daemon/history/project-history.js";
import { assistantMessage, toolCall, toolResult, userMessage } from "../../../src/model/items.js";
import { ts0 } from "./log-fixtures.js";

const KiB = 1024;
const limits = { partBytes: 100, entryBytes: 150, previewBytes: 10 };

function entryOf(texts: string[]): FullHistoryEntry {
  const item = assistantMessage("");
  item.content = texts.map((text) => ({ type: "text", text }));
  return projectEntry({ position: 4, entry: { kind: "assistant_items", ts: ts0, items: [item] } })[0]!;
}

describe("bounded history entries", () => {
  it("leave an entry whose parts fit untouched (the same object)", () => {
    const entry = entryOf(["short", "also short"]);
    expect(boundEntry(entry, "s1", limits)).toBe(entry);
  });

  it("truncate a text part over the part bound to its start, with its size, encoding and ref", () => {
    const text = `${"é".repeat(60)}tail`;
    const bounded = boundEntry(entryOf([text]), "s1", limits);
    expect(bounded.content).toEqual([
      {
        kind: "text",
        text: "é".repeat(5),
        truncated: true,
        bytes: 124,
        encoding: "text",
        ref: "/sessions/s1/entries/4/content?part=0",
      },
    ]);
  });

  it("truncate later parts once the entry's budget is used, with a shorter or empty preview", () => {
    const tight = { partBytes: 100, entryBytes: 110, previewBytes: 10 };
    const texts = ["a".repeat(90), "b".repeat(50), "c".repeat(50), "d".repeat(50)];
    const bounded = boundEntry(entryOf(texts), "s1", tight);
    const [first, ...rest] = bounded.content as TruncatedPart[];
    expect(first).toEqual({ kind: "text", text: "a".repeat(90) });
    expect(rest.map((part) => [part.truncated, part.kind === "text" && part.text, part.bytes])).toEqual([
      [true, "b".repeat(10), 50],
      [true, "c".repeat(6), 50],
      [true, "", 50],
    ]);
    expect(rest.map((part) => part.ref)).toEqual(
      [1, 2, 3].map((k) => `/sessions/s1/entries/4/content?part=${k}`),
    );
  });

  it("serve a tool result and unparsable arguments as text, parsed arguments as JSON text", () => {
    const call = projectEntry({
      position: 2,
      entry: {
        kind: "assistant_items",
        ts: ts0,
        items: [toolCall("c1", "write", JSON.stringify({ body: "x".repeat(200) }))],
      },
    })[0]!;
    const bounded = boundEntry(call, "s1", limits).content[0] as TruncatedPart;
    expect(bounded).toMatchObject({ kind: "json", field: "arguments", truncated: true, encoding: "json" });
    expect(bounded.kind === "json" && bounded.value).toBe('{"body":');
    expect(partContent(call.content[0]!)).toEqual({
      encoding: "json",
      text: JSON.stringify({ body: "x".repeat(200) }),
    });

    const result = projectEntry({
      position: 3,
      entry: { kind: "tool_results", ts: ts0, items: [toolResult("c1", "y".repeat(200))] },
    })[0]!;
    expect(boundEntry(result, "s1", limits).content[0]).toMatchObject({
      kind: "json",
      field: "result",
      value: "y".repeat(10),
      truncated: true,
      bytes: 200,
      encoding: "text",
    });
    const raw = toolCall("c2", "write", "{not json");
    const rawEntry = projectEntry({
      position: 5,
      entry: { kind: "assistant_items", ts: ts0, items: [raw] },
    })[0]!;
    expect(partContent(rawEntry.content[0]!)).toEqual({ encoding: "text", text: "{not json" });
  });

  it("use the daemon's bounds by default: a 256 KiB part stays, a larger one goes out as a 16 KiB preview", () => {
    const user = (text: string) =>
      projectEntry({ position: 1, entry: { kind: "user_input", ts: ts0, item: userMessage(text) } })[0]!;
    const fits = user("a".repeat(256 * KiB - 2));
    expect(boundEntry(fits, "s1")).toBe(fits);
    const large = boundEntry(user("a".repeat(256 * KiB - 1)), "s1").content[0] as TruncatedPart;
    expect(large.truncated).toBe(true);
    expect(large.kind === "text" && large.text.length).toBe(16 * KiB);
  });

  it("cut a text for an event to its preview and say how large it was", () => {
    expect(boundText("short", limits)).toEqual({ text: "short", cutFrom: null });
    expect(boundText("z".repeat(500), limits)).toEqual({ text: "z".repeat(10), cutFrom: 500 });
  });
});
