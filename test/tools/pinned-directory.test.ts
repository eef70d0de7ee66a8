import { mkdir, readFile, rename, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { PinnedDirectory } from "../../src/tools/pinned-directory.js";
import { withTempDirectory } from "./tool-harness.js";

const base = withTempDirectory();
let root: string;
let outside: string;

beforeEach(async () => {
  root = path.join(base.root, "ws");
  outside = path.join(base.root, "outside");
  await mkdir(path.join(root, "a", "b"), { recursive: true });
  await mkdir(outside);
});

describe("PinnedDirectory", () => {
  it("opens a directory beneath the root and names its entries through the descriptor", async () => {
    const directory = await PinnedDirectory.openBeneath(root, path.join(root, "a", "b"), "a/b");
    try {
      expect(directory.path).toBe(path.join(root, "a", "b"));
      await writeFile(directory.entry("f.txt"), "pinned");
      expect(await readFile(path.join(root, "a", "b", "f.txt"), "utf8")).toBe("pinned");
    } finally {
      await directory.close();
    }
  });

  it("keeps naming the directory it opened after it was moved and replaced by a symlink", async () => {
    const directory = await PinnedDirectory.openBeneath(root, path.join(root, "a"), "a");
    try {
      await rename(path.join(root, "a"), path.join(root, "moved"));
      await symlink(outside, path.join(root, "a"));
      await writeFile(directory.entry("f.txt"), "stays inside");
      expect(await readFile(path.join(root, "moved", "f.txt"), "utf8")).toBe("stays inside");
      await expect(stat(path.join(outside, "f.txt"))).rejects.toThrow();
    } finally {
      await directory.close();
    }
  });

  it("refuses a directory on the way that became a symbolic link, without entering it", async () => {
    await rename(path.join(root, "a"), path.join(root, "real-a"));
    await symlink(outside, path.join(root, "a"));
    await expect(
      PinnedDirectory.openBeneath(root, path.join(root, "a", "b"), "a/b/x.txt"),
    ).rejects.toMatchObject({
      name: "WorkspacePathError",
      problem: "symlink_escape",
      message: 'path "a/b/x.txt" changed while being opened (a directory on the way became a symbolic link)',
    });
  });

  it("creates missing directories on the way when asked, and refuses paths outside the root", async () => {
    const directory = await PinnedDirectory.openBeneath(root, path.join(root, "n", "m"), "n/m/f", {
      create: true,
    });
    await directory.close();
    expect((await stat(path.join(root, "n", "m"))).isDirectory()).toBe(true);
    await expect(PinnedDirectory.openBeneath(root, outside, "../outside")).rejects.toMatchObject({
      problem: "outside_workspace",
    });
    await expect(PinnedDirectory.openBeneath(root, path.join(root, "none"), "none")).rejects.toThrow(
      /does not exist/,
    );
  });
});
