import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { editDiffLines, fileEditOf, unifiedDiffLines } from "../../../src/cli/render/unified-diff.js";

const plain = pc.createColors(false);
const colour = pc.createColors(true);

describe("unified diffs of file edits", () => {
  it("diffs a write over an existing file with headers, a hunk and context", () => {
    const edit = fileEditOf(
      "write_file",
      { path: "a.txt", content: "one\nTWO\nthree\n" },
      () => "one\ntwo\nthree\n",
    );
    expect(unifiedDiffLines(plain, edit!)).toEqual([
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -1,3 +1,3 @@",
      " one",
      "-two",
      "+TWO",
      " three",
    ]);
  });

  it("shows a new file against /dev/null", () => {
    const edit = fileEditOf("write_file", { path: "new.txt", content: "x\n" }, () => null);
    expect(unifiedDiffLines(plain, edit!)).toEqual([
      "--- /dev/null",
      "+++ b/new.txt",
      "@@ -1,0 +1,1 @@",
      "+x",
    ]);
  });

  it("applies an edit to the file's text, or shows the replacement alone when the text is not there", () => {
    const file = "alpha\nbeta $& gamma\n";
    const applied = fileEditOf("edit_file", { path: "f", old_text: "beta $&", new_text: "$1 B" }, () => file);
    expect(applied?.after).toBe("alpha\n$1 B gamma\n");
    const alone = fileEditOf("edit_file", { path: "f", old_text: "zeta", new_text: "eta" }, () => file);
    expect(alone).toEqual({ path: "f", before: "zeta\n", after: "eta\n" });
    expect(fileEditOf("run_command", { command: "ls" }, () => null)).toBeNull();
    expect(fileEditOf("write_file", { content: "no path" }, () => null)).toBeNull();
  });

  it("colours removals red and additions green on a colour terminal, and cuts long diffs", () => {
    const edit = { path: "a", before: "a\n", after: "b\n" };
    const lines = unifiedDiffLines(colour, edit);
    expect(lines).toContain(colour.red("-a"));
    expect(lines).toContain(colour.green("+b"));
    const long = { path: "a", before: null, after: `${"line\n".repeat(100)}` };
    const cut = unifiedDiffLines(plain, long, 10);
    expect(cut).toHaveLength(11);
    expect(cut.at(-1)).toBe("… 93 more lines of diff");
  });

  it("shows what a finished edit changed from its arguments' JSON text", () => {
    expect(editDiffLines(plain, "edit_file", '{"path":"p","old_text":"x","new_text":"y"}')).toEqual([
      "--- a/p",
      "+++ b/p",
      "@@ -1,1 +1,1 @@",
      "-x",
      "+y",
    ]);
    expect(editDiffLines(plain, "edit_file", "not json")).toEqual([]);
    expect(editDiffLines(plain, "read_file", { path: "p" })).toEqual([]);
  });
});
