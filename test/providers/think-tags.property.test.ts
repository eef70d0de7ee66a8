/** The <think> splitter: the same segments for any split of the content deltas. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ContentSegment, ThinkTagSplitter } from "../../src/providers/chat-completions/think-tags.js";

/** Segments with consecutive ones of a kind joined. */
function run(deltas: readonly string[]): ContentSegment[] {
  const splitter = new ThinkTagSplitter();
  const segments = [...deltas.flatMap((delta) => splitter.push(delta)), ...splitter.flush()];
  const joined: ContentSegment[] = [];
  for (const segment of segments) {
    const last = joined[joined.length - 1];
    if (last !== undefined && last.kind === segment.kind) last.text += segment.text;
    else joined.push({ ...segment });
  }
  return joined;
}

/** `text` cut at the given positions. */
function cut(text: string, positions: number[]): string[] {
  const points = [...new Set(positions.map((position) => position % (text.length + 1)))].sort(
    (a, b) => a - b,
  );
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(text.slice(start, point));
    start = point;
  }
  pieces.push(text.slice(start));
  return pieces;
}

describe("ThinkTagSplitter", () => {
  it("splits a leading <think> block from the answer, whatever the cuts", () => {
    const thought = fc.string().filter((text) => !text.includes("</think>"));
    fc.assert(
      fc.property(thought, fc.string(), fc.array(fc.nat(200)), (thinking, answer, positions) => {
        const content = `<think>${thinking}</think>\n\n${answer}`;
        const expected: ContentSegment[] = [];
        if (thinking.length > 0) expected.push({ kind: "thinking", text: thinking });
        const trimmed = answer.replace(/^\s+/, "");
        if (trimmed.length > 0) expected.push({ kind: "text", text: trimmed });
        expect(run(cut(content, positions))).toEqual(expected);
      }),
    );
  });

  it("leaves content that does not open with <think> as text, tags and all", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.array(fc.nat(200)), (answer, positions) => {
        const content = `Answer: ${answer} <think>not a thought</think>`;
        expect(run(cut(content, positions))).toEqual([{ kind: "text", text: content }]);
      }),
    );
  });
});
