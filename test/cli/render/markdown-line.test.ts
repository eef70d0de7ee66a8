import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { newMarkdownState, renderMarkdownLine } from "../../../src/cli/render/markdown-line.js";

const plain = pc.createColors(false);
const colour = pc.createColors(true);

function render(lines: string[], paint = plain): string[] {
  const state = newMarkdownState();
  return lines.map((line) => renderMarkdownLine(line, state, paint, 40));
}

describe("markdown lines on a terminal", () => {
  it("renders headings, emphasis, code spans, links, lists, quotes and rules", () => {
    expect(
      render([
        "# Title #",
        "Some **bold**, *italic*, _also_, ~~gone~~ and `a*b*c`.",
        "[docs](https://x.dev) and [https://y.dev](https://y.dev)",
        "  - nested item",
        "- [x] done",
        "3. third",
        "> quoted",
        "---",
      ]),
    ).toEqual([
      "Title",
      "Some bold, italic, also, gone and a*b*c.",
      "docs (https://x.dev) and https://y.dev",
      "  • nested item",
      "• ☑ done",
      "3. third",
      "│ quoted",
      "─".repeat(39),
    ]);
  });

  it("leaves arithmetic and snake_case words alone", () => {
    expect(render(["2 * 3 * 4 and my_var_name"])).toEqual(["2 * 3 * 4 and my_var_name"]);
  });

  it("colours code inside a fence by its language, and nothing markdown inside it", () => {
    const [open, code, markdownInside, close, after] = render(
      ["```ts", "const a = 1; // note", "**not bold**", "```", "**bold**"],
      colour,
    );
    expect(open).toBe(colour.dim("```ts"));
    expect(code).toContain(colour.magenta("const"));
    expect(code).toContain(colour.dim("// note"));
    expect(markdownInside).toContain("**not bold**");
    expect(close).toBe(colour.dim("```"));
    expect(after).toBe(colour.bold("bold"));
  });
});
