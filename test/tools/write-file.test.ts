import { spawnSync } from "node:child_process";
import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileTool } from "../../src/tools/write-file.js";
import { callTool, expectToolError, withTempDirectory } from "./tool-harness.js";

const workspace = withTempDirectory();
const outside = withTempDirectory({ prefix: "skein-outside-" });
const write = (input: unknown) => callTool(writeFileTool(workspace.root), input);

describe("write_file", () => {
  it("creates a file and its missing parent directories", async () => {
    expect(await write({ path: "src/lib/new.ts", content: "export {};\n" })).toBe(
      "created src/lib/new.ts (11 bytes)",
    );
    expect(await readFile(path.join(workspace.root, "src/lib/new.ts"), "utf8")).toBe("export {};\n");
  });

  it("replaces an existing file whole, keeps its permission bits and leaves no temporary file", async () => {
    const script = path.join(workspace.root, "run.sh");
    await writeFile(script, "old content that is longer\n");
    await chmod(script, 0o750);
    expect(await write({ path: "run.sh", content: "#!/bin/sh\n" })).toBe("replaced run.sh (10 bytes)");
    expect(await readFile(script, "utf8")).toBe("#!/bin/sh\n");
    expect((await stat(script)).mode & 0o777).toBe(0o750);
    expect(await readdir(workspace.root)).toEqual(["run.sh"]);
  });

  it("sweeps the temporary siblings a killed writer left behind, and keeps those of a live one", async () => {
    const dead = spawnSync("true").pid!;
    const leftovers = {
      deadWriter: `.notes.md.${dead}-aaaaaaaaaaaa.skein-tmp`,
      thisProcessNotWriting: `.notes.md.${process.pid}-bbbbbbbbbbbb.skein-tmp`,
      liveWriter: `.notes.md.1-cccccccccccc.skein-tmp`,
      otherFile: `.other.md.${dead}-dddddddddddd.skein-tmp`,
    };
    for (const name of Object.values(leftovers)) await writeFile(path.join(workspace.root, name), "half");
    expect(await write({ path: "notes.md", content: "whole\n" })).toBe("created notes.md (6 bytes)");
    expect((await readdir(workspace.root)).sort()).toEqual(
      [leftovers.liveWriter, leftovers.otherFile, "notes.md"].sort(),
    );
  });

  it("writes UTF-8 content and empty files", async () => {
    await write({ path: "ünï.txt", content: "héllo ✓" });
    await write({ path: "empty", content: "" });
    expect(await readFile(path.join(workspace.root, "ünï.txt"), "utf8")).toBe("héllo ✓");
    expect(await readFile(path.join(workspace.root, "empty"), "utf8")).toBe("");
  });

  it("replaces a symlink that points inside the workspace by writing its target", async () => {
    await writeFile(path.join(workspace.root, "target.txt"), "old");
    await symlink("target.txt", path.join(workspace.root, "link.txt"));
    await write({ path: "link.txt", content: "new" });
    expect(await readFile(path.join(workspace.root, "target.txt"), "utf8")).toBe("new");
  });

  it("refuses to write over a directory", async () => {
    await mkdir(path.join(workspace.root, "dir"));
    await expectToolError(write({ path: "dir", content: "x" }), "execution_failed", /"dir" is a directory/);
  });

  it("cannot write outside the workspace by path, symlinked directory or dangling symlink", async () => {
    await symlink(outside.root, path.join(workspace.root, "out"));
    await symlink(path.join(outside.root, "created-by-link.txt"), path.join(workspace.root, "dangling"));
    await writeFile(path.join(outside.root, "existing.txt"), "keep");
    await symlink(path.join(outside.root, "existing.txt"), path.join(workspace.root, "existing-link"));
    for (const trick of [
      path.join(outside.root, "direct.txt"),
      `../${path.basename(outside.root)}/dotdot.txt`,
      "out/through-dir.txt",
      "out/new-dir/deeper.txt",
      "dangling",
      "existing-link",
    ]) {
      await expectToolError(
        write({ path: trick, content: "escaped" }),
        "invalid_argument",
        /outside the workspace/,
      );
    }
    expect((await readdir(outside.root)).sort()).toEqual(["existing.txt"]);
    expect(await readFile(path.join(outside.root, "existing.txt"), "utf8")).toBe("keep");
  });

  it("rejects invalid arguments as invalid_argument", async () => {
    await expectToolError(
      write({ path: "a.txt" }),
      "invalid_argument",
      /missing required property "content"/,
    );
    await expectToolError(write({ path: "", content: "" }), "invalid_argument", /"path" must NOT have fewer/);
    await expectToolError(write({ path: "a", content: 3 }), "invalid_argument", /"content" must be string/);
    await expectToolError(
      write({ path: "a", content: "", append: true }),
      "invalid_argument",
      /unknown property/,
    );
  });
});
