import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { listFilesTool, MAX_LIST_ENTRIES } from "../../src/tools/list-files.js";
import { callTool, expectToolError, withTempDirectory } from "./tool-harness.js";

const workspace = withTempDirectory();
const list = (input: unknown) => callTool(listFilesTool(workspace.root), input);
const make = async (relative: string) => {
  const absolute = path.join(workspace.root, relative);
  await mkdir(path.dirname(absolute), { recursive: true });
  if (relative.endsWith("/")) await mkdir(absolute, { recursive: true });
  else await writeFile(absolute, "");
};

beforeEach(async () => {
  for (const entry of ["b.txt", "a/", "a/z.ts", "a/inner/deep.ts", ".git/HEAD", "node_modules/x/index.js"]) {
    await make(entry);
  }
  await symlink("/etc", path.join(workspace.root, "etc-link"));
});

describe("list_files", () => {
  it("lists the workspace root, directories with a slash and links with their target", async () => {
    expect(await list({})).toBe([".git/", "a/", "b.txt", "etc-link -> /etc", "node_modules/"].join("\n"));
  });

  it("lists a subdirectory with workspace-relative paths", async () => {
    expect(await list({ path: "a" })).toBe(["a/inner/", "a/z.ts"].join("\n"));
  });

  it("lists recursively in tree order without entering .git, node_modules or symlinks", async () => {
    expect(await list({ recursive: true })).toBe(
      [
        ".git/",
        "a/",
        "a/inner/",
        "a/inner/deep.ts",
        "a/z.ts",
        "b.txt",
        "etc-link -> /etc",
        "node_modules/",
      ].join("\n"),
    );
  });

  it("stops after the entry bound and says so", async () => {
    for (let i = 0; i < MAX_LIST_ENTRIES + 20; i++) await make(`many/f${String(i).padStart(5, "0")}`);
    const output = String(await list({ recursive: true }));
    const lines = output.split("\n");
    expect(lines).toHaveLength(MAX_LIST_ENTRIES + 1);
    expect(lines.at(-1)).toBe(
      `[listing stopped after ${MAX_LIST_ENTRIES} entries; list a subdirectory to see more]`,
    );
  });

  it("says when a directory is empty", async () => {
    await make("empty/");
    expect(await list({ path: "empty" })).toBe("(empty directory)");
  });

  it("refuses files, missing paths and directories outside the workspace", async () => {
    await expectToolError(list({ path: "b.txt" }), "execution_failed", /"b.txt" is not a directory/);
    await expectToolError(list({ path: "missing" }), "execution_failed", /does not exist/);
    await expectToolError(list({ path: "etc-link" }), "invalid_argument", /outside the workspace/);
    await expectToolError(list({ path: "/etc" }), "invalid_argument", /outside the workspace/);
    await expectToolError(list({ path: "a/../.." }), "invalid_argument", /outside the workspace/);
  });

  it("rejects invalid arguments as invalid_argument", async () => {
    await expectToolError(list({ recursive: "yes" }), "invalid_argument", /"recursive" must be boolean/);
    await expectToolError(list({ depth: 2 }), "invalid_argument", /unknown property "depth"/);
  });
});
