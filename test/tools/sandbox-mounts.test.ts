import { lstatSync, realpathSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import {
  privateDirectories,
  workspaceMountArguments,
  writableMountArguments,
} from "../../src/tools/sandbox-mounts.js";
import { makeTempDirectory, type TempDirectory, withTempDirectory } from "./tool-harness.js";

/** The arguments as `[option, ...operands]` groups, for readable expectations. */
function mounts(args: readonly string[]): string[] {
  const groups: string[] = [];
  for (let at = 0; at < args.length; ) {
    const option = args[at] ?? "";
    const operands = option === "--bind" || option === "--ro-bind" ? 2 : 1;
    groups.push([option, ...args.slice(at + 1, at + 1 + operands)].join(" "));
    at += 1 + operands;
  }
  return groups;
}

describe("privateDirectories", () => {
  it("covers /tmp and /run once each, following a symlinked /var/run", () => {
    const found = privateDirectories();
    expect(found).toContain("/tmp");
    expect(found).toContain(realpathSync("/run"));
    if (lstatSync("/var/run").isSymbolicLink()) expect(found).not.toContain("/var/run");
    expect(new Set(found).size).toBe(found.length);
  });
});

describe("workspaceMountArguments", () => {
  const workspace = withTempDirectory();

  it("mounts a private directory holding the workspace before the workspace, the others after", () => {
    const groups = mounts(workspaceMountArguments(workspace.root, []));
    const bind = groups.indexOf(`--bind ${workspace.root} ${workspace.root}`);
    expect(groups.indexOf("--tmpfs /tmp")).toBeLessThan(bind);
    expect(groups.indexOf(`--tmpfs ${realpathSync("/run")}`)).toBeGreaterThan(bind);
  });

  it("covers hidden paths after the workspace, pinning the directories that lead to them", async () => {
    const home = path.join(workspace.root, "a", "b", ".skein");
    await mkdir(home, { recursive: true });
    await writeFile(path.join(workspace.root, "a", "db.sqlite"), "");
    const hidden = resolveHiddenPaths([
      home,
      path.join(home, "skein.sqlite"),
      path.join(workspace.root, "a", "db.sqlite"),
      path.join(workspace.root, "a", "db.sqlite-journal"),
      path.join(workspace.root, "missing-dir", "db.sqlite-wal"),
      "/var/tmp/skein-never-created/secret",
      "/tmp/skein-outside-workspace/home",
    ]);
    const groups = mounts(workspaceMountArguments(workspace.root, hidden));
    const after = groups.slice(groups.indexOf(`--bind ${workspace.root} ${workspace.root}`) + 1);
    const a = path.join(workspace.root, "a");
    expect(after.filter((group) => !group.startsWith("--tmpfs /run"))).toEqual([
      `--bind ${a} ${a}`,
      `--bind ${a}/b ${a}/b`,
      `--tmpfs ${home}`,
      `--remount-ro ${home}`,
      `--ro-bind /dev/null ${a}/db.sqlite`,
      // Missing, but in the writable workspace: covered so nothing can be planted there.
      `--ro-bind /dev/null ${a}/db.sqlite-journal`,
    ]);
  });
});

describe("writableMountArguments with readable paths", () => {
  let root: TempDirectory;

  beforeEach(async () => {
    root = await makeTempDirectory("skein-readable-", "/tmp");
  });
  afterEach(async () => {
    await root.remove();
  });

  it("shows a readable path inside a private directory read-only, before a writable one inside it", async () => {
    const program = path.join(root.root, "server");
    const workspace = path.join(program, "workspace");
    await mkdir(workspace, { recursive: true });
    const groups = mounts(writableMountArguments([workspace], [], [program]));
    const tmpfs = groups.indexOf("--tmpfs /tmp");
    const shown = groups.indexOf(`--ro-bind ${program} ${program}`);
    const writable = groups.indexOf(`--bind ${workspace} ${workspace}`);
    expect(tmpfs).toBeGreaterThanOrEqual(0);
    expect(tmpfs).toBeLessThan(shown);
    expect(shown).toBeLessThan(writable);
  });

  it("never shows a private directory itself, nor a path the read-only root shows anyway, nor one a writable bind holds", () => {
    const inWorkspace = path.join(root.root, "inside");
    const groups = mounts(writableMountArguments([root.root], [], ["/tmp", "/usr/lib", inWorkspace]));
    expect(groups.filter((group) => group.startsWith("--ro-bind ") && group !== "--ro-bind / /")).toEqual([]);
  });

  it("covers a hidden path inside a readable one, even when it is missing there", async () => {
    const program = path.join(root.root, "server");
    const home = path.join(program, ".skein");
    await mkdir(home, { recursive: true });
    await writeFile(path.join(program, "db.sqlite"), "");
    const hidden = resolveHiddenPaths([
      home,
      path.join(program, "db.sqlite"),
      path.join(program, "db.sqlite-wal"),
    ]);
    const groups = mounts(writableMountArguments([], hidden, [program]));
    const after = groups.slice(groups.indexOf(`--ro-bind ${program} ${program}`) + 1);
    expect(after.filter((group) => !group.startsWith("--tmpfs /run"))).toEqual([
      `--tmpfs ${home}`,
      `--remount-ro ${home}`,
      `--ro-bind /dev/null ${program}/db.sqlite`,
    ]);
  });
});
