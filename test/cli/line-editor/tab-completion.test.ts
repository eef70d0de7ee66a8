import { describe, expect, it } from "vitest";
import { bufferOf } from "../../../src/cli/line-editor/edit-buffer.js";
import { applyCompletion, candidateRows } from "../../../src/cli/line-editor/tab-completion.js";

describe("applying Tab completion", () => {
  it("finishes a single candidate with a space, but leaves a folder open", () => {
    expect(applyCompletion(bufferOf("/he"), { start: 0, candidates: ["/help"] }, 80)).toEqual({
      buffer: bufferOf("/help "),
      hints: [],
    });
    expect(applyCompletion(bufferOf("read @sr"), { start: 5, candidates: ["@src/"] }, 80).buffer).toEqual(
      bufferOf("read @src/"),
    );
  });

  it("extends the word to what all candidates share and lists them", () => {
    const completed = applyCompletion(
      bufferOf("@src/m"),
      { start: 0, candidates: ["@src/main.ts", "@src/mod.ts"] },
      80,
    );
    expect(completed).toEqual({ buffer: bufferOf("@src/m"), hints: ["@src/main.ts  @src/mod.ts"] });
    const shared = applyCompletion(bufferOf("/e"), { start: 0, candidates: ["/exit", "/export"] }, 80);
    expect(shared.buffer).toEqual(bufferOf("/ex"));
  });

  it("keeps the text after the cursor", () => {
    const buffer = { text: "/mo and more", cursor: 3 };
    expect(applyCompletion(buffer, { start: 0, candidates: ["/model"] }, 80).buffer).toEqual({
      text: "/model  and more",
      cursor: 7,
    });
  });
});

describe("laying out completion candidates", () => {
  it("fills rows to the terminal's width, leaving its last column free", () => {
    expect(candidateRows(["aaaa", "bbbb", "cccc"], 11)).toEqual(["aaaa  bbbb", "cccc"]);
    expect(candidateRows(["aaaa", "bbbb"], 10)).toEqual(["aaaa", "bbbb"]);
  });

  it("shows at most four rows and marks that there are more", () => {
    const candidates = Array.from({ length: 10 }, (_, index) => `candidate-${index}`);
    expect(candidateRows(candidates, 20)).toEqual([
      "candidate-0",
      "candidate-1",
      "candidate-2",
      "candidate-3 …",
    ]);
  });

  it("keeps a candidate wider than the terminal on a row of its own", () => {
    expect(candidateRows(["a-very-long-candidate", "b"], 10)).toEqual(["a-very-long-candidate", "b"]);
  });
});
