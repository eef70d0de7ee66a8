import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistantMessage, reasoning } from "../../src/model/items.js";
import { interruptedAnswer } from "../../src/worker/interrupted-answer.js";
import type { StreamedBlock } from "../../src/worker/response-collector.js";

describe("interruptedAnswer", () => {
  it("keeps thinking first and the text joined into one assistant message", () => {
    expect(
      interruptedAnswer([
        { kind: "text", text: "Hello " },
        { kind: "thinking", text: "hmm" },
        { kind: "text", text: "world" },
      ]),
    ).toEqual([reasoning("hmm"), assistantMessage("Hello world")]);
  });

  it("drops empty blocks and text that is only whitespace", () => {
    expect(
      interruptedAnswer([
        { kind: "thinking", text: "" },
        { kind: "text", text: "  \n" },
      ]),
    ).toEqual([]);
  });

  it("keeps every streamed character of text and thinking, for any blocks", () => {
    const block = fc.record({
      kind: fc.constantFrom("text" as const, "thinking" as const),
      text: fc.string(),
    });
    fc.assert(
      fc.property(fc.array(block), (blocks: StreamedBlock[]) => {
        const items = interruptedAnswer(blocks);
        const text = blocks
          .filter((b) => b.kind === "text")
          .map((b) => b.text)
          .join("");
        const message = items.find((item) => item.type === "message");
        expect(
          message === undefined
            ? ""
            : message.content.map((part) => ("text" in part ? part.text : "")).join(""),
        ).toBe(text.trim() === "" ? "" : text);
        const thoughts = items.filter((item) => item.type === "reasoning").map((item) => item.text);
        expect(thoughts).toEqual(
          blocks.filter((b) => b.kind === "thinking" && b.text !== "").map((b) => b.text),
        );
      }),
    );
  });
});
