import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  clusterEndAfter,
  clusterStartBefore,
  cutToWidth,
  displayWidth,
  indexAtColumn,
} from "../../src/cli/text-width.js";

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const clusters = (text: string) => [...graphemes.segment(text)].map((part) => part.segment);
/** Text of letters, CJK, emoji (with joiners and skin tones) and combining marks. */
const mixedText = fc
  .array(fc.constantFrom("a", "Z", " ", "日", "本", "😀", "👍🏽", "👨‍👩‍👧", "e\u0301", "ß", "한"), {
    maxLength: 30,
  })
  .map((parts) => parts.join(""));

describe("text as a terminal shows it", () => {
  it("counts wide characters as two columns, combining marks and escape codes as none", () => {
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("日本")).toBe(4);
    expect(displayWidth("😀")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("\x1b[1mbold\x1b[22m")).toBe(4);
  });

  it("cuts to a width without splitting a character or going over (property)", () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 0, max: 70 }), (text, columns) => {
        const cut = cutToWidth(text, columns);
        expect(text.startsWith(cut)).toBe(true);
        expect(displayWidth(cut)).toBeLessThanOrEqual(columns);
        // Whole clusters only, and as many as fit.
        const parts = clusters(text);
        const kept = clusters(cut);
        expect(kept).toEqual(parts.slice(0, kept.length));
        if (kept.length < parts.length) {
          expect(displayWidth(cut + parts[kept.length]!)).toBeGreaterThan(columns);
        }
      }),
    );
  });

  it("finds cluster boundaries on both sides of any boundary (property)", () => {
    fc.assert(
      fc.property(mixedText, (text) => {
        const parts = clusters(text);
        let at = 0;
        for (const part of parts) {
          expect(clusterEndAfter(text, at, text.length)).toBe(at + part.length);
          expect(clusterStartBefore(text, 0, at + part.length)).toBe(at);
          at += part.length;
        }
      }),
    );
  });

  it("maps a display column back to a boundary at or before it (property)", () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 0, max: 70 }), (line, column) => {
        const index = indexAtColumn(line, column);
        expect(displayWidth(line.slice(0, index))).toBeLessThanOrEqual(column);
        expect(clusters(line.slice(0, index)).join("")).toBe(line.slice(0, index));
      }),
    );
  });
});
