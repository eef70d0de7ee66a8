import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type GrepEngine, grepTool } from "../../src/tools/grep.js";
import { findRipgrep } from "../../src/tools/grep-ripgrep.js";
import { MAX_GREP_MATCHES } from "../../src/tools/grep-search.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { callTool, expectToolError, withTempDirectory } from "./tool-harness.js";

const ripgrep = findRipgrep();
if (ripgrep === null)
  throw new Error('grep tests need ripgrep: install it with "apt-get install -y ripgrep"');
const engines: Array<[string, GrepEngine]> = [
  ["ripgrep", { kind: "ripgrep", path: ripgrep }],
  ["in-process", { kind: "in_process" }],
];

const workspace = withTempDirectory();
const put = async (relative: string, content: string | Buffer) => {
  const absolute = path.join(workspace.root, relative);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, content);
};

beforeEach(async () => {
  await put("src/a.ts", "const needle = 1;\nother\nneedle again\n");
  await put("src/b.md", "a needle in markdown\n");
  await put("README.md", "no match here\nNeedle capital\n");
  await put(".gitignore", "build/\n*.log\n");
  await put("build/out.ts", "needle built\n");
  await put("debug.log", "needle logged\n");
  await put(".git/config", "needle in git\n");
  await put(".env", "needle=dotfile\n");
  await put("bin.dat", Buffer.from("needle\0binary"));
  await put(".skein/token", "needle secret\n");
  await symlink("/etc", path.join(workspace.root, "etc-link"));
});

describe.each(engines)("grep with the %s engine", (_name, engine) => {
  const grep = (input: unknown) =>
    callTool(
      grepTool(workspace.root, resolveHiddenPaths([path.join(workspace.root, ".skein")]), engine),
      input,
    );

  it("finds matching lines sorted by path then line, skipping ignored, .git, binary, hidden and linked files", async () => {
    expect(await grep({ pattern: "needle" })).toBe(
      [
        ".env:1: needle=dotfile",
        "src/a.ts:1: const needle = 1;",
        "src/a.ts:3: needle again",
        "src/b.md:1: a needle in markdown",
      ].join("\n"),
    );
  });

  it("searches a sub-path and shows paths from the workspace root", async () => {
    expect(await grep({ pattern: "needle", path: "src" })).toBe(
      ["src/a.ts:1: const needle = 1;", "src/a.ts:3: needle again", "src/b.md:1: a needle in markdown"].join(
        "\n",
      ),
    );
    expect(await grep({ pattern: "again", path: "src/a.ts" })).toBe("src/a.ts:3: needle again");
  });

  it("keeps only files matching the glob, by name or by path", async () => {
    expect(await grep({ pattern: "eedle", glob: "*.md" })).toBe(
      ["README.md:2: Needle capital", "src/b.md:1: a needle in markdown"].join("\n"),
    );
    expect(await grep({ pattern: "needle", glob: "src/*.ts" })).toBe(
      ["src/a.ts:1: const needle = 1;", "src/a.ts:3: needle again"].join("\n"),
    );
  });

  it("says so when nothing matches, and refuses a bad regex, a hidden path and a path outside", async () => {
    expect(await grep({ pattern: "absent-word" })).toBe("no matches");
    await expectToolError(grep({ pattern: "(unclosed" }), "invalid_argument", /invalid regular expression/);
    await expectToolError(grep({ pattern: "x", path: ".skein" }), "invalid_argument", /hidden/);
    await expectToolError(grep({ pattern: "x", path: "../" }), "invalid_argument", /outside/);
  });

  it(`shows at most ${MAX_GREP_MATCHES} matches and says how many more there are`, async () => {
    await put("many/lines.txt", `${Array.from({ length: 250 }, (_, i) => `hit ${i}`).join("\n")}\n`);
    await put("many/more.txt", "hit x\nhit y\n");
    const lines = String(await grep({ pattern: "^hit", path: "many" })).split("\n");
    expect(lines).toHaveLength(MAX_GREP_MATCHES + 1);
    expect(lines[0]).toBe("many/lines.txt:1: hit 0");
    expect(lines.at(-1)).toBe(
      "[52 more matches not shown (252 in 2 files; 1 shown); narrow the pattern, path or glob]",
    );
  });
});
