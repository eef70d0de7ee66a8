import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { toolLines } from "../../../src/cli/render/tool-line.js";

const plain = pc.createColors(false);

describe("a tool call's lines in the transcript", () => {
  it("shows a command in full with its exit code, the first lines of its output and how many more", () => {
    const command = "npm test -- --reporter=verbose --run test/some/really/long/path/that/goes/on.test.ts";
    const lines = toolLines(plain, {
      name: "run_command",
      args: JSON.stringify({ command }),
      result: "exit code: 1\nline 1\nline 2\nline 3\nline 4\nline 5\n",
      isError: false,
    });
    expect(lines).toEqual([
      `⚙ run_command $ ${command} → exit 1`,
      "  │ line 1",
      "  │ line 2",
      "  │ line 3",
      "  … +2 lines",
    ]);
  });

  it("shows a file tool's whole path, and a read as its number of lines", () => {
    const path = "src/a/deeply/nested/folder/with/a/long/file-name-that-is-not-cut.ts";
    expect(
      toolLines(plain, { name: "read_file", args: { path }, result: "a\nb\nc", isError: false }),
    ).toEqual([`⚙ read_file ${path} → 3 lines`]);
    expect(
      toolLines(plain, {
        name: "edit_file",
        args: { path, old_text: "x", new_text: "y" },
        result: "edited",
        isError: false,
      }),
    ).toEqual([`⚙ edit_file ${path} → edited`]);
  });

  it("marks a failed call and shows its message", () => {
    expect(
      toolLines(plain, {
        name: "write_file",
        args: { path: "/etc/x", content: "" },
        result: "outside the workspace",
        isError: true,
      }),
    ).toEqual(["⚙ write_file /etc/x ✗ outside the workspace"]);
  });

  it("shows a search as its pattern and where, with the number of matches or files found", () => {
    expect(
      toolLines(plain, {
        name: "grep",
        args: { pattern: "TODO", path: "src", glob: "*.ts" },
        result:
          "src/a.ts:1: // TODO a\nsrc/b.ts:9: // TODO b\n[3 more matches not shown (5 in 4 files; 2 shown); narrow the pattern, path or glob]",
        isError: false,
      }),
    ).toEqual([
      "⚙ grep /TODO/ in src (*.ts) → 5 matches",
      "  │ src/a.ts:1: // TODO a",
      "  │ src/b.ts:9: // TODO b",
      "  │ [3 more matches not shown (5 in 4 files; 2 shown); narrow the pattern, path or glob]",
    ]);
    expect(
      toolLines(plain, { name: "grep", args: { pattern: "x" }, result: "no matches", isError: false }),
    ).toEqual(["⚙ grep /x/ → no matches"]);
    expect(
      toolLines(plain, {
        name: "glob",
        args: { pattern: "**/*.md" },
        result: "README.md\ndocs/a.md",
        isError: false,
      }),
    ).toEqual(["⚙ glob **/*.md → 2 files", "  │ README.md", "  │ docs/a.md"]);
  });

  it("shows a patch as its edits and files, a fetch as its URL and a plan whole", () => {
    expect(
      toolLines(plain, {
        name: "apply_patch",
        args: {
          edits: [
            { path: "a.ts", old_text: "x", new_text: "y" },
            { path: "b.ts", new_text: "z" },
          ],
        },
        result: "applied 2 edit(s) to 2 file(s): edited a.ts, created b.ts",
        isError: false,
      }),
    ).toEqual([
      "⚙ apply_patch 2 edits: a.ts, b.ts → applied 2 edit(s) to 2 file(s): edited a.ts, created b.ts",
    ]);
    expect(
      toolLines(plain, {
        name: "web_fetch",
        args: { url: "https://example.com/x" },
        result: "# Title\ntext",
        isError: false,
      }),
    ).toEqual(["⚙ web_fetch https://example.com/x → # Title", "  │ text"]);
    const plan = "4 todos: 1 completed, 1 in progress, 2 pending\n[x] one\n[~] two\n[ ] three\n[ ] four";
    expect(
      toolLines(plain, {
        name: "todo_write",
        args: { todos: [{}, {}, {}, {}] },
        result: plan,
        isError: false,
      }),
    ).toEqual([
      "⚙ todo_write 4 items → 4 todos: 1 completed, 1 in progress, 2 pending",
      "  │ [x] one",
      "  │ [~] two",
      "  │ [ ] three",
      "  │ [ ] four",
    ]);
  });
});
