import { mkdir, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { globTool, MAX_GLOB_RESULTS } from "../../src/tools/glob.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { callTool, expectToolError, withTempDirectory } from "./tool-harness.js";

const workspace = withTempDirectory();
let clock = 1_700_000_000;
const put = async (relative: string, content = "") => {
  const absolute = path.join(workspace.root, relative);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, content);
  clock += 60;
  await utimes(absolute, clock, clock);
};
const glob = (input: unknown) =>
  callTool(globTool(workspace.root, resolveHiddenPaths([path.join(workspace.root, ".skein")])), input);

beforeEach(async () => {
  await put("src/old.ts");
  await put("src/deep/mid.ts");
  await put("README.md");
  await put(".gitignore", "dist/\n");
  await put("dist/built.ts");
  await put(".git/hook.ts");
  await put(".skein/secret.ts");
  await put("src/new.ts");
  await symlink(path.join(workspace.root, "src"), path.join(workspace.root, "src-link"));
});

describe("glob", () => {
  it("lists matching files newest first, leaving out ignored, .git, hidden and linked ones", async () => {
    expect(await glob({ pattern: "**/*.ts" })).toBe(
      ["src/new.ts", "src/deep/mid.ts", "src/old.ts"].join("\n"),
    );
  });

  it("matches a glob without '/' against file names at any depth, and searches a sub-path", async () => {
    expect(await glob({ pattern: "*.md" })).toBe("README.md");
    expect(await glob({ pattern: "*.ts", path: "src/deep" })).toBe("src/deep/mid.ts");
    expect(await glob({ pattern: "deep/*.ts", path: "src" })).toBe("src/deep/mid.ts");
  });

  it("says so when nothing matches and refuses a file, a hidden path and a path outside", async () => {
    expect(await glob({ pattern: "*.rs" })).toBe("no files match");
    await expectToolError(glob({ pattern: "*", path: "README.md" }), "execution_failed", /not a directory/);
    await expectToolError(glob({ pattern: "*", path: ".skein" }), "invalid_argument", /hidden/);
    await expectToolError(glob({ pattern: "*", path: "/etc" }), "invalid_argument", /outside/);
  });

  it(`returns at most ${MAX_GLOB_RESULTS} paths and says how many more there are`, async () => {
    for (let i = 0; i < MAX_GLOB_RESULTS + 5; i++)
      await writeFile(path.join(workspace.root, `f${i}.txt`), "");
    const lines = String(await glob({ pattern: "*.txt" })).split("\n");
    expect(lines).toHaveLength(MAX_GLOB_RESULTS + 1);
    expect(lines.at(-1)).toBe("[5 more files not shown; narrow the pattern or path]");
  });
});
