import { describe, expect, it } from "vitest";
import {
  bufferOf,
  deleteBack,
  deleteWordBack,
  insert,
  killToLineEnd,
  killToLineStart,
  moveLine,
  moveLineEdge,
  moveWord,
  wordBeforeCursor,
} from "../../../src/cli/line-editor/edit-buffer.js";

describe("editing the prompt's text", () => {
  it("moves between lines keeping the column, and says when there is no line to go to", () => {
    const buffer = { text: "first line\nab\nthird line", cursor: 8 };
    const down = moveLine(buffer, 1)!;
    expect(down.cursor).toBe("first line\nab".length);
    expect(moveLine(down, 1)!.cursor).toBe("first line\nab\n".length + 2);
    expect(moveLine(buffer, -1)).toBeNull();
    expect(moveLine(bufferOf("one\ntwo"), 1)).toBeNull();
  });

  it("kills to the start or end of the cursor's line only", () => {
    const buffer = { text: "keep\nabc def\nkeep", cursor: 8 };
    expect(killToLineStart(buffer)).toEqual({ text: "keep\n def\nkeep", cursor: 5 });
    expect(killToLineEnd(buffer)).toEqual({ text: "keep\nabc\nkeep", cursor: 8 });
    expect(moveLineEdge(buffer, "end").cursor).toBe(12);
  });

  it("deletes and moves by words, and never splits a surrogate pair", () => {
    expect(deleteWordBack(bufferOf("git commit  "))).toEqual({ text: "git ", cursor: 4 });
    expect(moveWord({ text: "one two three", cursor: 0 }, 1).cursor).toBe(3);
    expect(deleteBack(insert(bufferOf("a"), "😀"))).toEqual({ text: "a", cursor: 1 });
  });

  it("finds the word being completed", () => {
    expect(wordBeforeCursor(bufferOf("read @src/ma"))).toEqual({ word: "@src/ma", start: 5 });
    expect(wordBeforeCursor(bufferOf("trailing "))).toEqual({ word: "", start: 9 });
  });
});
