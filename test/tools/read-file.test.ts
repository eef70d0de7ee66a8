import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OUTPUT_LIMIT_BYTES } from "../../src/tools/output-limit.js";
import { DEFAULT_READ_LINES, readFileTool } from "../../src/tools/read-file.js";
import { callTool, expectToolError, withTempDirectory } from "./tool-harness.js";

const workspace = withTempDirectory();
const read = (input: unknown) => callTool(readFileTool(workspace.root), input);
const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`);

describe("read_file", () => {
  it("returns a small file's text exactly, without a note", async () => {
    await writeFile(path.join(workspace.root, "notes.txt"), "first\n  second\r\nthird");
    expect(await read({ path: "notes.txt" })).toBe("first\n  second\r\nthird");
  });

  it("returns the window of lines asked for, and where to continue", async () => {
    await writeFile(path.join(workspace.root, "n.txt"), `${numbered(10).join("\n")}\n`);
    expect(await read({ path: "n.txt", offset: 3, limit: 2 })).toBe(
      "line 3\nline 4\n[lines 3-4; more lines follow, continue with offset=5]",
    );
    expect(await read({ path: "n.txt", offset: 9 })).toBe("line 9\nline 10\n[lines 9-10 of 10]");
    expect(await read({ path: "n.txt", offset: 9, limit: 2 })).toBe("line 9\nline 10\n[lines 9-10 of 10]");
  });

  it("reads at most the default number of lines", async () => {
    await writeFile(path.join(workspace.root, "long.txt"), numbered(DEFAULT_READ_LINES + 5).join("\n"));
    const output = String(await read({ path: "long.txt" }));
    expect(output.split("\n")).toHaveLength(DEFAULT_READ_LINES + 1);
    expect(output).toContain(`continue with offset=${DEFAULT_READ_LINES + 1}`);
  });

  it("stops at the output limit and says which offset continues", async () => {
    const line = "x".repeat(999);
    await writeFile(
      path.join(workspace.root, "wide.txt"),
      Array.from({ length: 200 }, () => line).join("\n"),
    );
    const output = String(await read({ path: "wide.txt" }));
    const shown = Math.floor((OUTPUT_LIMIT_BYTES + 1) / 1000);
    expect(Buffer.byteLength(output)).toBeLessThan(OUTPUT_LIMIT_BYTES + 200);
    expect(output).toContain(`lines 1-${shown} shown; continue with offset=${shown + 1}`);
  });

  it("cuts a single line longer than the limit on a character boundary and says how much is missing", async () => {
    const line = "é".repeat(OUTPUT_LIMIT_BYTES); // two bytes each
    await writeFile(path.join(workspace.root, "one.txt"), `${line}\nnext`);
    const output = String(await read({ path: "one.txt" }));
    const [shown] = output.split("\n");
    expect(shown).toBe("é".repeat(OUTPUT_LIMIT_BYTES / 2));
    expect(output).toContain(`${OUTPUT_LIMIT_BYTES} bytes of it not shown; the next line is offset=2`);
  });

  it("says a file is empty", async () => {
    await writeFile(path.join(workspace.root, "empty.txt"), "");
    expect(await read({ path: "empty.txt" })).toBe("(empty file)");
  });

  it("refuses an offset past the end", async () => {
    await writeFile(path.join(workspace.root, "n.txt"), "a\nb\n");
    await expectToolError(
      read({ path: "n.txt", offset: 3 }),
      "invalid_argument",
      /offset 3 is past the end.*2 lines/,
    );
  });

  it("refuses binary files, directories, missing files and FIFOs without blocking", async () => {
    await writeFile(path.join(workspace.root, "bin.dat"), Buffer.from([0x7f, 0x45, 0x00, 0x01]));
    await mkdir(path.join(workspace.root, "dir"));
    execFileSync("mkfifo", [path.join(workspace.root, "pipe")]);
    await expectToolError(read({ path: "bin.dat" }), "execution_failed", /binary/);
    await expectToolError(read({ path: "dir" }), "execution_failed", /is a directory/);
    await expectToolError(read({ path: "missing.txt" }), "execution_failed", /"missing.txt" does not exist/);
    await expectToolError(read({ path: "pipe" }), "execution_failed", /not a regular file/);
  });

  it("cannot read /etc/passwd through any path trick or symlink", async () => {
    await symlink("/etc/passwd", path.join(workspace.root, "pw"));
    await symlink("/etc", path.join(workspace.root, "etc"));
    await mkdir(path.join(workspace.root, "a"));
    await symlink("../..", path.join(workspace.root, "a", "up"));
    const depth = workspace.root.split("/").length;
    for (const trick of [
      "/etc/passwd",
      `${"../".repeat(depth)}etc/passwd`,
      "a/../../etc/passwd",
      `${workspace.root}/../../etc/passwd`,
      "pw",
      "etc/passwd",
      `a/up/${"../".repeat(depth)}etc/passwd`,
      "a/up/etc/passwd",
      "pw\0",
    ]) {
      const error = await expectToolError(read({ path: trick }), "invalid_argument");
      expect(error.message, trick).not.toContain("root:");
    }
  });

  it("rejects invalid arguments as invalid_argument", async () => {
    await expectToolError(read({}), "invalid_argument", /missing required property "path"/);
    await expectToolError(read({ path: "a", offset: 0 }), "invalid_argument", /"offset" must be >= 1/);
    await expectToolError(read({ path: "a", limit: 1.5 }), "invalid_argument", /"limit" must be integer/);
    await expectToolError(read({ path: "a", mode: "x" }), "invalid_argument", /unknown property "mode"/);
    await expectToolError(read({ path: 7 }), "invalid_argument", /"path" must be string/);
    const { tool } = readFileTool(workspace.root)();
    await expectToolError(
      tool.execute("{not json", { call_id: "c", signal: new AbortController().signal }),
      "invalid_argument",
      /not valid JSON/,
    );
  });
});
