/**
 * The two grep engines agree: on random trees (nested directories, dotfiles, .gitignore files
 * with anchored, directory and negated rules, a hidden directory) with random patterns, paths
 * and globs, ripgrep and the in-process engine give the same text.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { grepTool } from "../../src/tools/grep.js";
import { findRipgrep } from "../../src/tools/grep-ripgrep.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { callTool, withTempDirectory } from "./tool-harness.js";

const ripgrep = findRipgrep();
if (ripgrep === null)
  throw new Error('this test needs ripgrep: install it with "apt-get install -y ripgrep"');

const names = ["a.ts", "b.md", "keep.md", ".env", "ab.txt", "c", "d1", "d2", ".hid"];
const directories = ["", "d1", "d2", "d1/d2", "d2/d1", ".hid"];
const words = ["foo", "bar", "foobar", "a.c", "abc", "xx", "Foo", "  bar  ", "b", ""];
const ignoreRules = ["*.md", "d1/", "!keep.md", "/a.ts", "d2/*.ts", "b*", "*.txt", "!/d1/", ".env", "c"];
const patterns = ["foo", "^foo", "bar$", "a.c", "[ab]b", "(foo|xx)", "o+b", "^$", "F", "b"];
const globs = [undefined, "*.ts", "*.md", "a*", "d1/**", "**/b*", "*.{ts,txt}", "d2/*"];

const file = fc.record({
  directory: fc.constantFrom(...directories),
  name: fc.constantFrom(...names),
  lines: fc.array(fc.constantFrom(...words), { maxLength: 5 }),
});
const gitignore = fc.record({
  directory: fc.constantFrom(...directories),
  rules: fc.array(fc.constantFrom(...ignoreRules), { minLength: 1, maxLength: 3 }),
});

const workspace = withTempDirectory({ each: false });

describe("grep engines", () => {
  it("give the same result for random trees, patterns, paths and globs", async () => {
    let withMatches = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(file, { minLength: 4, maxLength: 20 }),
        fc.array(gitignore, { maxLength: 3 }),
        fc.constantFrom(...patterns),
        fc.constantFrom(undefined, "d1", "d2", "d1/d2"),
        fc.constantFrom(...globs),
        async (files, ignores, pattern, searched, glob) => {
          const root = path.join(workspace.root, "tree");
          await rm(root, { recursive: true, force: true });
          await mkdir(path.join(root, "d1", "d2"), { recursive: true });
          await mkdir(path.join(root, "d2"), { recursive: true });
          for (const entry of files) {
            const directory = path.join(root, entry.directory);
            await mkdir(directory, { recursive: true });
            if (directories.includes(path.join(entry.directory, entry.name))) continue;
            await writeFile(path.join(directory, entry.name), entry.lines.join("\n")).catch(() => undefined);
          }
          for (const entry of ignores) {
            await mkdir(path.join(root, entry.directory), { recursive: true });
            await writeFile(path.join(root, entry.directory, ".gitignore"), `${entry.rules.join("\n")}\n`);
          }
          const hidden = resolveHiddenPaths([path.join(root, "d2", "d1")]);
          const input = {
            pattern,
            ...(searched === undefined ? {} : { path: searched }),
            ...(glob === undefined ? {} : { glob }),
          };
          const withRipgrep = await callTool(
            grepTool(root, hidden, { kind: "ripgrep", path: ripgrep }),
            input,
          );
          const inProcess = await callTool(grepTool(root, hidden, { kind: "in_process" }), input);
          expect(inProcess).toBe(withRipgrep);
          if (withRipgrep !== "no matches") withMatches++;
        },
      ),
      { numRuns: 150 },
    );
    // Agreeing on "no matches" alone would prove little.
    expect(withMatches).toBeGreaterThan(20);
  });
});
