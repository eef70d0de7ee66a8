import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BoundedOutput, truncateText, utf8Prefix } from "../../src/tools/output-limit.js";

const MARKER = /\n\[\.\.\. output truncated: (\d+) bytes omitted \.\.\.\]\n/;

describe("BoundedOutput", () => {
  it("returns short output unchanged", () => {
    const output = new BoundedOutput(100);
    output.append(Buffer.from("hello "));
    output.append(Buffer.from("world"));
    expect(output.render()).toBe("hello world");
    expect(output.totalBytes).toBe(11);
  });

  it("keeps the head and the tail of long output and says how many bytes were omitted", () => {
    const output = new BoundedOutput(10);
    output.append(Buffer.from("0123456789abcdefghij"));
    expect(output.render()).toBe("01234\n[... output truncated: 10 bytes omitted ...]\nfghij");
  });

  it("keeps head and tail exactly, on character boundaries, for any text split into any chunks", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.array(fc.nat({ max: 50 }), { maxLength: 20 }),
        fc.integer({ min: 2, max: 120 }),
        (text, cuts, limit) => {
          const bytes = Buffer.from(text, "utf8");
          const output = new BoundedOutput(limit);
          let at = 0;
          for (const cut of cuts) {
            output.append(bytes.subarray(at, at + cut));
            at = Math.min(bytes.length, at + cut);
          }
          output.append(bytes.subarray(at));
          const rendered = output.render();
          if (bytes.length <= limit) {
            expect(rendered).toBe(text);
            return;
          }
          const match = MARKER.exec(rendered);
          expect(match).not.toBeNull();
          const head = rendered.slice(0, match?.index);
          const tail = rendered.slice((match?.index ?? 0) + (match?.[0].length ?? 0));
          expect(text.startsWith(head)).toBe(true);
          expect(text.endsWith(tail)).toBe(true);
          const shown = Buffer.byteLength(head) + Buffer.byteLength(tail);
          expect(shown).toBeLessThanOrEqual(limit);
          expect(shown + Number(match?.[1])).toBe(bytes.length);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("truncateText and utf8Prefix", () => {
  it("leaves text within the limit alone and cuts longer text", () => {
    expect(truncateText("short", 10)).toBe("short");
    expect(truncateText("x".repeat(30), 10)).toMatch(MARKER);
  });

  it("never splits a multi-byte character", () => {
    expect(utf8Prefix(Buffer.from("aé€😀"), 2)).toBe("a");
    expect(utf8Prefix(Buffer.from("aé€😀"), 3)).toBe("aé");
    expect(utf8Prefix(Buffer.from("aé€😀"), 9)).toBe("aé€");
    expect(utf8Prefix(Buffer.from("aé€😀"), 10)).toBe("aé€😀");
  });
});
