import { describe, expect, it } from "vitest";
import { isPrintable } from "../../../src/cli/line-editor/keypress.js";

describe("what a key may insert", () => {
  it("takes letters, wide characters, emoji, tabs and newlines as text", () => {
    for (const text of ["a", "日", "😀", "e\u0301", "\t", "\n", " "]) expect(isPrintable(text)).toBe(true);
  });

  it("refuses an empty string, control characters and Delete", () => {
    for (const text of ["", "\x01", "\x1b", "\r", "\x7f", "a\x03"]) expect(isPrintable(text)).toBe(false);
  });
});
