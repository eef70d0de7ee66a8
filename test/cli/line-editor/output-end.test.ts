import { describe, expect, it } from "vitest";
import {
  afterWriting,
  atLineStart,
  resumeOutput,
  waitsToWrap,
} from "../../../src/cli/line-editor/output-end.js";

describe("where the output above the prompt stopped", () => {
  it("counts the columns of a line still open, across writes and wide characters", () => {
    const first = afterWriting(atLineStart, true, "abc");
    expect(first).toEqual({ open: true, column: 3 });
    expect(afterWriting(first, true, "日本")).toEqual({ open: true, column: 7 });
  });

  it("counts from the last newline of what was written", () => {
    expect(afterWriting({ open: true, column: 30 }, true, "done\nnext")).toEqual({ open: true, column: 4 });
  });

  it("starts a fresh line when the output ended its line", () => {
    expect(afterWriting({ open: true, column: 30 }, false, "done")).toEqual(atLineStart);
  });

  it("takes the cursor back up to the open line's end, wrapped to the terminal's width", () => {
    expect(resumeOutput({ open: true, column: 5 }, 80)).toBe("\x1b[1A\r\x1b[5C");
    expect(resumeOutput({ open: true, column: 85 }, 80)).toBe("\x1b[1A\r\x1b[5C");
    expect(resumeOutput({ open: true, column: 80 }, 80)).toBe("\x1b[1A\r");
    expect(resumeOutput(atLineStart, 80)).toBeNull();
  });

  it("holds the prompt back while an open line has just filled its row", () => {
    expect(waitsToWrap({ open: true, column: 80 }, 80)).toBe(true);
    expect(waitsToWrap({ open: true, column: 79 }, 80)).toBe(false);
    expect(waitsToWrap(atLineStart, 80)).toBe(false);
  });
});
