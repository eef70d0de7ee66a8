import { describe, expect, it } from "vitest";
import {
  bufferOf,
  deleteBack,
  deleteForward,
  deleteWordBack,
  insert,
  killToLineEnd,
  killToLineStart,
  moveChar,
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

  it("moves and deletes by whole characters: an emoji of several code points, a letter with its accent", () => {
    const family = "👨‍👩‍👧";
    const accented = "e\u0301";
    const text = `a${family}${accented}b`;
    const afterA = moveChar({ text, cursor: 0 }, 1);
    expect(afterA.cursor).toBe(1);
    const afterFamily = moveChar(afterA, 1);
    expect(afterFamily.cursor).toBe(1 + family.length);
    expect(moveChar(afterFamily, 1).cursor).toBe(1 + family.length + accented.length);
    expect(moveChar(afterFamily, -1).cursor).toBe(1);
    expect(deleteBack(afterFamily)).toEqual({ text: `a${accented}b`, cursor: 1 });
    expect(deleteForward(afterFamily)).toEqual({ text: `a${family}b`, cursor: 1 + family.length });
    // A newline is a character of its own.
    expect(moveChar({ text: "x\ny", cursor: 1 }, 1).cursor).toBe(2);
    expect(deleteBack({ text: "x\ny", cursor: 2 })).toEqual({ text: "xy", cursor: 1 });
  });

  it("keeps the column on screen when moving between lines of wide characters", () => {
    // "日本" takes four columns: below it, column 4 is after "abcd".
    const buffer = { text: "日本\nabcdef", cursor: 2 };
    expect(moveLine(buffer, 1)!.cursor).toBe("日本\nabcd".length);
    expect(moveLine({ text: "日本\nabcdef", cursor: "日本\nabc".length }, -1)!.cursor).toBe(1);
  });

  it("finds the word being completed", () => {
    expect(wordBeforeCursor(bufferOf("read @src/ma"))).toEqual({ word: "@src/ma", start: 5 });
    expect(wordBeforeCursor(bufferOf("trailing "))).toEqual({ word: "", start: 9 });
  });
});
