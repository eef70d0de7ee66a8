import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { bufferOf } from "../../../src/cli/line-editor/edit-buffer.js";
import {
  drawFrame,
  eraseArea,
  type FrameContent,
  type FrameTarget,
  visibleLines,
} from "../../../src/cli/line-editor/prompt-frame.js";

const target: FrameTarget = {
  columns: 20,
  rows: 24,
  paint: pc.createColors(false),
  cursorRow: null,
  outputOpen: false,
};

function content(text: string, extra: Partial<FrameContent> = {}): FrameContent {
  return { prompt: "› ", promptWidth: 2, header: [], buffer: bufferOf(text), footer: [], ...extra };
}

describe("drawing the prompt", () => {
  it("draws the prompt with the cursor hidden meanwhile and put after the text", () => {
    expect(drawFrame(content("hi"), target)).toEqual({
      bytes: "\x1b[?25l› hi\r\x1b[4C\x1b[?25h",
      cursorRow: 0,
    });
  });

  it("continues lines below the first indented, and goes back up to the cursor's line", () => {
    const frame = drawFrame(content("one\ntwo", { buffer: { text: "one\ntwo", cursor: 1 } }), target);
    expect(frame).toEqual({ bytes: "\x1b[?25l› one\r\n  two\x1b[1A\r\x1b[3C\x1b[?25h", cursorRow: 0 });
  });

  it("puts status rows above and hint rows below, cut to fit the width", () => {
    const frame = drawFrame(
      content("x", { header: ["working"], footer: ["a hint far wider than the terminal"] }),
      target,
    );
    expect(frame.bytes).toBe("\x1b[?25lworking\r\n› x\r\na hint far wider t…\x1b[1A\r\x1b[3C\x1b[?25h");
    expect(frame.cursorRow).toBe(1);
  });

  it("replaces the frame drawn before, or starts below output that ended mid-line", () => {
    expect(drawFrame(content(""), { ...target, cursorRow: 2 }).bytes).toBe(
      "\x1b[?25l\x1b[2A\r\x1b[J› \r\x1b[2C\x1b[?25h",
    );
    expect(drawFrame(content(""), { ...target, outputOpen: true }).bytes).toBe(
      "\x1b[?25l\r\n› \r\x1b[2C\x1b[?25h",
    );
  });

  it("counts a line that wraps as several rows, and steps off a row filled to its last column", () => {
    const wrapped = drawFrame(content("x".repeat(25)), target);
    expect(wrapped).toEqual({ bytes: `\x1b[?25l› ${"x".repeat(25)}\r\x1b[7C\x1b[?25h`, cursorRow: 1 });
    const full = drawFrame(content("x".repeat(18)), target);
    expect(full).toEqual({ bytes: `\x1b[?25l› ${"x".repeat(18)} \x1b[D\x1b[K\r\x1b[?25h`, cursorRow: 1 });
  });

  it("shows only the lines around the cursor of a prompt taller than the screen, saying how many are hidden", () => {
    const text = Array.from({ length: 10 }, (_, index) => `line ${index}`).join("\n");
    const frame = drawFrame(content(text, { buffer: { text, cursor: text.indexOf("line 5") } }), {
      ...target,
      rows: 7,
    });
    expect(frame.bytes).toBe(
      "\x1b[?25l  … 4 lines above\r\n  line 4\r\n  line 5\r\n  line 6\r\n  … 3 lines below\x1b[2A\r\x1b[2C\x1b[?25h",
    );
  });

  it("erases a frame from the row the cursor is on", () => {
    expect(eraseArea(0)).toBe("\r\x1b[J");
    expect(eraseArea(3)).toBe("\x1b[3A\r\x1b[J");
  });
});

describe("choosing the lines of a tall prompt to show", () => {
  it("grows around the cursor's line, one below then one above, while they fit", () => {
    expect(visibleLines([1, 1, 1, 1, 1, 1], 2, 3)).toEqual({ first: 1, last: 3 });
    expect(visibleLines([1, 1, 1, 1, 1, 1], 5, 3)).toEqual({ first: 3, last: 5 });
    expect(visibleLines([1, 1], 0, 10)).toEqual({ first: 0, last: 1 });
  });

  it("counts a wrapped line by its rows", () => {
    expect(visibleLines([1, 3, 1, 1], 2, 3)).toEqual({ first: 2, last: 3 });
  });
});
