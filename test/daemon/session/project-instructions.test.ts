import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  findProjectInstructions,
  maxInstructionBytes,
  withInstructions,
} from "../../../src/daemon/session/project-instructions.js";
import { resolveHiddenPaths } from "../../../src/tools/hidden-paths.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A repository `root/repo` (with .git) holding `repo/pkg/app`; returns the paths. */
function tree() {
  const root = mkdtempSync(join(tmpdir(), "skein-instructions-"));
  roots.push(root);
  const repo = join(root, "repo");
  const app = join(repo, "pkg", "app");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(app, { recursive: true });
  return { root, repo, pkg: join(repo, "pkg"), app };
}

const find = (workspace: string, hiddenPaths: string[] = [], maxBytes?: number) =>
  findProjectInstructions(workspace, {
    hidden: resolveHiddenPaths(hiddenPaths),
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });

describe("project instructions", () => {
  it("takes the workspace's AGENTS.md over its CLAUDE.md, and CLAUDE.md when there is no AGENTS.md", () => {
    const { app } = tree();
    writeFileSync(join(app, "CLAUDE.md"), "claude rules\n");
    expect(find(app)).toEqual({
      path: join(app, "CLAUDE.md"),
      bytes: 13,
      truncated: false,
      text: "claude rules\n",
    });
    writeFileSync(join(app, "AGENTS.md"), "agent rules\n");
    expect(find(app)?.path).toBe(join(app, "AGENTS.md"));
  });

  it("searches parents up to the repository root; the nearest directory with either file wins", () => {
    const { root, repo, pkg, app } = tree();
    writeFileSync(join(root, "AGENTS.md"), "above the repository: never used");
    expect(find(app)).toBeNull();
    writeFileSync(join(repo, "AGENTS.md"), "repository rules");
    expect(find(app)?.text).toBe("repository rules");
    writeFileSync(join(pkg, "CLAUDE.md"), "package rules");
    expect(find(app)?.text).toBe("package rules");
    // A .git file (a worktree or a submodule) marks a repository root too.
    writeFileSync(join(pkg, ".git"), "gitdir: elsewhere\n");
    rmSync(join(pkg, "CLAUDE.md"));
    expect(find(app)).toBeNull();
  });

  it("looks only in the workspace when it is not in a repository", () => {
    const root = mkdtempSync(join(tmpdir(), "skein-instructions-"));
    roots.push(root);
    const workspace = join(root, "work");
    mkdirSync(workspace);
    writeFileSync(join(root, "AGENTS.md"), "parent rules");
    expect(find(workspace)).toBeNull();
    writeFileSync(join(workspace, "AGENTS.md"), "own rules");
    expect(find(workspace)?.text).toBe("own rules");
  });

  it("reads at most the cap, cut on a character boundary, and says the file was longer", () => {
    const { app } = tree();
    writeFileSync(join(app, "AGENTS.md"), `${"a".repeat(9)}é and more`);
    expect(find(app, [], 10)).toEqual({
      path: join(app, "AGENTS.md"),
      bytes: 20,
      truncated: true,
      text: "a".repeat(9),
    });
    writeFileSync(join(app, "AGENTS.md"), "x".repeat(maxInstructionBytes + 5));
    const capped = find(app);
    expect(capped?.text).toHaveLength(maxInstructionBytes);
    expect(capped).toMatchObject({ bytes: maxInstructionBytes + 5, truncated: true });
    expect(withInstructions("Be brief.", capped!)).toMatch(
      new RegExp(
        `^Be brief\\.\\n\\nThe project's instructions for agents, from ${join(app, "AGENTS.md")}:\\n\\nx+\\n\\n\\[\\.\\.\\. the file is ${maxInstructionBytes + 5} bytes; only its first ${maxInstructionBytes} are shown\\]$`,
      ),
    );
  });

  it("never reads a file that is, or links into, a hidden path, and skips what is not a regular file", () => {
    const { root, app } = tree();
    const home = join(root, "home");
    mkdirSync(home);
    writeFileSync(join(home, "config.json"), '{"apiKey":"secret"}');
    symlinkSync(join(home, "config.json"), join(app, "AGENTS.md"));
    expect(find(app, [home])).toBeNull();
    writeFileSync(join(app, "CLAUDE.md"), "the fallback");
    expect(find(app, [home])?.text).toBe("the fallback");
    // Without the home hidden, the link would be followed: the refusal above is the hidden-path check.
    expect(find(app)?.text).toBe('{"apiKey":"secret"}');
    rmSync(join(app, "AGENTS.md"));
    mkdirSync(join(app, "AGENTS.md"));
    expect(find(app, [home])?.text).toBe("the fallback");
  });

  it("ends the search at a blank file: it wins and adds nothing", () => {
    const { repo, app } = tree();
    writeFileSync(join(repo, "AGENTS.md"), "repository rules");
    writeFileSync(join(app, "AGENTS.md"), "  \n");
    expect(find(app)).toBeNull();
  });
});
