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
});
