import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TextOffsetError } from "../../../src/daemon/errors.js";
import { jsonStringBytes, sliceText } from "../../../src/daemon/history/text-slice.js";

/** Any UTF-16 string: lone surrogates, pairs, controls, quotes and everything else. */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) });
const wellFormed = fc.string({ unit: "grapheme" });

/** Every slice from offset 0 on, following each slice's end. */
function slices(text: string, limit: number): { text: string; end: number }[] {
  const out: { text: string; end: number }[] = [];
  let offset = 0;
  const total = Buffer.byteLength(text, "utf8");
  do {
    const slice = sliceText(text, offset, limit);
    out.push(slice);
    if (slice.end === offset && offset < total) throw new Error("no progress");
    offset = slice.end;
  } while (offset < total);
  return out;
}

describe("text slices", () => {
  it("give back exactly the text, for any string and any limit, each within its JSON budget unless one character", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, wellFormed), fc.integer({ min: 1, max: 40 }), (text, limit) => {
        const parts = slices(text, limit);
        expect(parts.map((part) => part.text).join("")).toBe(text);
        expect(parts.at(-1)!.end).toBe(Buffer.byteLength(text, "utf8"));
        for (const part of parts) {
          if ([...part.text].length > 1) expect(jsonStringBytes(part.text) - 2).toBeLessThanOrEqual(limit);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("never split a surrogate pair, so every slice of well-formed text is well-formed", () => {
    fc.assert(
      fc.property(wellFormed, fc.integer({ min: 1, max: 12 }), (text, limit) => {
        for (const part of slices(text, limit))
          expect(Buffer.from(part.text, "utf8").toString("utf8")).toBe(part.text);
      }),
    );
  });

  it("count what JSON.stringify writes: escapes take their escaped size", () => {
    expect(sliceText('ab"c', 0, 3)).toEqual({ text: "ab", end: 2 });
    expect(sliceText("a\u0001b", 0, 6)).toEqual({ text: "a", end: 1 });
    expect(sliceText("a\u0001b", 0, 7)).toEqual({ text: "a\u0001", end: 2 });
    expect(sliceText("é😀x", 0, 6)).toEqual({ text: "é😀", end: 6 });
    expect(sliceText("é😀x", 2, 4)).toEqual({ text: "😀", end: 6 });
  });

  it("hold at least one character even when it is larger than the limit, unless told not to", () => {
    expect(sliceText("😀😀", 0, 1)).toEqual({ text: "😀", end: 4 });
    expect(sliceText("😀😀", 0, 1, false)).toEqual({ text: "", end: 0 });
    expect(sliceText("", 0, 5)).toEqual({ text: "", end: 0 });
  });

  it("refuse an offset inside a character or past the end", () => {
    expect(() => sliceText("é", 1, 10)).toThrow(TextOffsetError);
    expect(() => sliceText("😀", 2, 10)).toThrow(/inside a character/);
    expect(() => sliceText("abc", 4, 10)).toThrow(/past the end/);
    expect(sliceText("abc", 3, 10)).toEqual({ text: "", end: 3 });
  });
});
