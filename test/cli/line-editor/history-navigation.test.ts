import { describe, expect, it } from "vitest";
import { bufferOf } from "../../../src/cli/line-editor/edit-buffer.js";
import { atDraft, recallNewer, recallOlder } from "../../../src/cli/line-editor/history-navigation.js";

const entries = ["oldest", "middle", "newest"];

describe("going up and down through the prompt history", () => {
  it("moves between the prompt's own lines before reaching the history", () => {
    const recall = { buffer: { text: "one\ntwo", cursor: 7 }, place: atDraft };
    expect(recallOlder(recall, entries)).toEqual({ buffer: { text: "one\ntwo", cursor: 3 }, place: atDraft });
  });

  it("shows older entries one by one, keeping what was typed, and stops at the oldest", () => {
    let recall = { buffer: bufferOf("typed"), place: atDraft };
    recall = recallOlder(recall, entries);
    expect(recall).toEqual({ buffer: bufferOf("newest"), place: { index: 2, draft: bufferOf("typed") } });
    recall = recallOlder(recallOlder(recall, entries), entries);
    expect(recall.buffer).toEqual(bufferOf("oldest"));
    expect(recallOlder(recall, entries)).toBe(recall);
  });

  it("comes back down to what was typed, and goes no further", () => {
    let recall = { buffer: bufferOf("typed"), place: atDraft };
    recall = recallOlder(recallOlder(recall, entries), entries);
    recall = recallNewer(recall, entries);
    expect(recall.buffer).toEqual(bufferOf("newest"));
    recall = recallNewer(recall, entries);
    expect(recall).toEqual({ buffer: bufferOf("typed"), place: { index: null, draft: bufferOf("typed") } });
    expect(recallNewer(recall, entries)).toBe(recall);
  });

  it("leaves the prompt as it is when there is no history", () => {
    const recall = { buffer: bufferOf("typed"), place: atDraft };
    expect(recallOlder(recall, [])).toBe(recall);
  });
});
