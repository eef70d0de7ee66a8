import { mkdir, realpath, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { isInsideDirectory } from "../../src/tools/path-containment.js";
import { resolveInWorkspace, WorkspacePathError } from "../../src/tools/workspace-path.js";
import { makeTempDirectory, type TempDirectory } from "./tool-harness.js";

let base: TempDirectory;
let workspace: string;
let outside: string;
let alias: string;

beforeAll(async () => {
  base = await makeTempDirectory("skein-path-");
  workspace = path.join(base.root, "ws");
  outside = path.join(base.root, "outside");
  alias = path.join(base.root, "alias-of-ws");
  await mkdir(path.join(workspace, "src", "deep"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, "src", "a.txt"), "a");
  await writeFile(path.join(outside, "secret.txt"), "secret");
  await symlink(workspace, alias);
  await symlink("/etc", path.join(workspace, "etc-link"));
  await symlink("/etc/passwd", path.join(workspace, "passwd-link"));
  await symlink(outside, path.join(workspace, "outside-link"));
  await symlink("../..", path.join(workspace, "src", "up-two"));
  await symlink("src", path.join(workspace, "src-link"));
  await symlink(path.join(workspace, "src", "a.txt"), path.join(workspace, "absolute-inside-link"));
  await symlink("outside-link", path.join(workspace, "chain-link"));
  await symlink("/etc/skein-never-created", path.join(workspace, "dangling-out"));
  await symlink("src/new-file.txt", path.join(workspace, "dangling-in"));
  await symlink("loop-b", path.join(workspace, "loop-a"));
  await symlink("loop-a", path.join(workspace, "loop-b"));
});

afterAll(async () => {
  await base.remove();
});

async function refusal(requested: string): Promise<WorkspacePathError> {
  const error: unknown = await resolveInWorkspace(workspace, requested).then(
    (resolved) => new Error(`"${requested}" resolved to ${resolved}`),
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof WorkspacePathError)) throw error;
  return error;
}

describe("resolveInWorkspace", () => {
  it("resolves relative paths to real paths inside the workspace", async () => {
    expect(await resolveInWorkspace(workspace, "src/a.txt")).toBe(path.join(workspace, "src", "a.txt"));
    expect(await resolveInWorkspace(workspace, ".")).toBe(workspace);
    expect(await resolveInWorkspace(workspace, "./src/./deep/../a.txt")).toBe(
      path.join(workspace, "src", "a.txt"),
    );
  });

  it("accepts paths that do not exist yet, appended to their real parent", async () => {
    expect(await resolveInWorkspace(workspace, "new/dir/file.txt")).toBe(
      path.join(workspace, "new", "dir", "file.txt"),
    );
    expect(await resolveInWorkspace(workspace, "src-link/new.txt")).toBe(
      path.join(workspace, "src", "new.txt"),
    );
  });

  it("accepts absolute paths inside the workspace, by its real path or through a symlinked alias", async () => {
    expect(await resolveInWorkspace(workspace, path.join(workspace, "src/a.txt"))).toBe(
      path.join(workspace, "src", "a.txt"),
    );
    expect(await resolveInWorkspace(alias, path.join(alias, "src/a.txt"))).toBe(
      path.join(workspace, "src", "a.txt"),
    );
    expect(await resolveInWorkspace(alias, path.join(workspace, "src/a.txt"))).toBe(
      path.join(workspace, "src", "a.txt"),
    );
  });

  it("follows symlinks that stay inside the workspace", async () => {
    expect(await resolveInWorkspace(workspace, "src-link/a.txt")).toBe(path.join(workspace, "src", "a.txt"));
    expect(await resolveInWorkspace(workspace, "absolute-inside-link")).toBe(
      path.join(workspace, "src", "a.txt"),
    );
    expect(await resolveInWorkspace(workspace, "dangling-in")).toBe(
      path.join(workspace, "src", "new-file.txt"),
    );
  });

  it("refuses absolute paths outside the workspace, naming the path", async () => {
    const error = await refusal("/etc/passwd");
    expect(error.problem).toBe("outside_workspace");
    expect(error.kind).toBe("invalid_argument");
    expect(error.requestedPath).toBe("/etc/passwd");
    expect(error.message).toContain('"/etc/passwd"');
    expect((await refusal(path.join(outside, "secret.txt"))).problem).toBe("outside_workspace");
  });

  it("refuses .. escapes, however they are spelled", async () => {
    for (const requested of ["..", "../../etc/passwd", "a/../../b", "src/deep/../../../outside", "./.."]) {
      expect((await refusal(requested)).problem).toBe("outside_workspace");
    }
  });

  it("refuses symlinks that lead outside, directly, through a directory, in a chain or via ..", async () => {
    for (const requested of [
      "passwd-link",
      "etc-link/passwd",
      "etc-link",
      "outside-link/secret.txt",
      "chain-link/secret.txt",
      "src/up-two",
      "src/up-two/etc/passwd",
      "outside-link/not-yet.txt",
    ]) {
      expect((await refusal(requested)).problem, requested).toBe("symlink_escape");
    }
  });

  it("refuses a dangling symlink whose target is outside, so a write cannot create it", async () => {
    const error = await refusal("dangling-out");
    expect(error.problem).toBe("symlink_escape");
    await expect(stat("/etc/skein-never-created")).rejects.toThrow();
  });

  it("refuses symlink loops", async () => {
    expect((await refusal("loop-a")).problem).toBe("too_many_links");
    expect((await refusal("loop-a/file")).problem).toBe("too_many_links");
  });

  it("refuses empty paths and NUL bytes", async () => {
    expect((await refusal("")).problem).toBe("invalid_path");
    const nul = await refusal("src/a.txt\0/etc/passwd");
    expect(nul.problem).toBe("invalid_path");
    expect(nul.message).toContain("NUL");
  });

  it("fails with a typed error when the workspace itself is missing", async () => {
    const error: unknown = await resolveInWorkspace(path.join(base.root, "missing"), "a").catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkspacePathError);
    expect((error as WorkspacePathError).problem).toBe("workspace_unavailable");
  });

  it("never returns a path outside the workspace, for any mix of segments, links and dots", async () => {
    const realRoot = await realpath(workspace);
    const segment = fc.constantFrom(
      "..",
      ".",
      "",
      "src",
      "deep",
      "a.txt",
      "new",
      "etc-link",
      "passwd-link",
      "outside-link",
      "chain-link",
      "up-two",
      "src-link",
      "dangling-out",
      "dangling-in",
      "loop-a",
      "etc",
      "passwd",
    );
    const requestedPath = fc
      .tuple(
        fc.constantFrom("", "/", `${workspace}/`, `${alias}/`),
        fc.array(segment, { minLength: 1, maxLength: 8 }),
      )
      .map(([prefix, segments]) => prefix + segments.join("/"))
      .filter((requested) => requested.length > 0);
    await fc.assert(
      fc.asyncProperty(requestedPath, async (requested) => {
        let resolved: string;
        try {
          resolved = await resolveInWorkspace(workspace, requested);
        } catch (error) {
          expect(error).toBeInstanceOf(WorkspacePathError);
          return;
        }
        expect(isInsideDirectory(realRoot, resolved), `${requested} -> ${resolved}`).toBe(true);
        // What the kernel resolves the result to must be inside too.
        let existing = resolved;
        for (;;) {
          const real = await realpath(existing).catch(() => undefined);
          if (real !== undefined) {
            expect(isInsideDirectory(realRoot, real), `${requested} -> ${resolved} -> ${real}`).toBe(true);
            break;
          }
          existing = path.dirname(existing);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("resolves plain relative paths to the workspace joined with the normalized path", async () => {
    const name = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
    await fc.assert(
      fc.asyncProperty(fc.array(name, { minLength: 1, maxLength: 5 }), async (names) => {
        expect(await resolveInWorkspace(workspace, names.join("/"))).toBe(path.join(workspace, ...names));
      }),
      { numRuns: 100 },
    );
  });
});

describe("resolveInWorkspace with hidden paths", () => {
  let hiddenRoot: string;
  let hidden: readonly string[];

  beforeAll(async () => {
    hiddenRoot = path.join(base.root, "with-hidden");
    await mkdir(path.join(hiddenRoot, ".skein"), { recursive: true });
    await writeFile(path.join(hiddenRoot, ".skein", "daemon.json"), '{"token":"t"}');
    await writeFile(path.join(hiddenRoot, "db.sqlite"), "db");
    await writeFile(path.join(hiddenRoot, "db.sqlite.bak"), "not hidden");
    await symlink(".skein", path.join(hiddenRoot, "home-link"));
    await symlink("db.sqlite-wal", path.join(hiddenRoot, "dangling-to-wal"));
    await symlink(path.join(hiddenRoot, ".skein", "daemon.json"), path.join(hiddenRoot, "token-link"));
    // Given through a symlinked alias: the set holds real paths, so both spellings are caught.
    await symlink(hiddenRoot, path.join(base.root, "alias-of-hidden-root"));
    const aliased = path.join(base.root, "alias-of-hidden-root");
    hidden = resolveHiddenPaths([
      path.join(aliased, ".skein"),
      ...["", "-wal", "-shm", "-journal"].map((suffix) => path.join(aliased, `db.sqlite${suffix}`)),
    ]);
  });

  it("refuses hidden directories, what lies under them, and hidden files that exist or not", async () => {
    for (const requested of [
      ".skein",
      ".skein/daemon.json",
      ".skein/not-yet",
      "./.skein/../.skein/config.json",
      `${hiddenRoot}/.skein/daemon.json`,
      "db.sqlite",
      "db.sqlite-wal",
      "db.sqlite-journal",
    ]) {
      await expect(resolveInWorkspace(hiddenRoot, requested, hidden), requested).rejects.toMatchObject({
        name: "WorkspacePathError",
        problem: "hidden_path",
        kind: "invalid_argument",
        message: expect.stringContaining("hidden from the agent"),
      });
    }
  });

  it("refuses symbolic links that lead to a hidden path, dangling ones included", async () => {
    for (const requested of ["home-link", "home-link/daemon.json", "token-link", "dangling-to-wal"]) {
      await expect(resolveInWorkspace(hiddenRoot, requested, hidden), requested).rejects.toMatchObject({
        problem: "hidden_path",
      });
    }
  });

  it("still resolves neighbours whose names merely start like a hidden path", async () => {
    expect(await resolveInWorkspace(hiddenRoot, "db.sqlite.bak", hidden)).toBe(
      path.join(hiddenRoot, "db.sqlite.bak"),
    );
    expect(await resolveInWorkspace(hiddenRoot, ".skein-notes", hidden)).toBe(
      path.join(hiddenRoot, ".skein-notes"),
    );
  });

  it("never returns a path inside a hidden one, whatever the request", async () => {
    const segment = fc.constantFrom(
      ".skein",
      "home-link",
      "token-link",
      "dangling-to-wal",
      "db.sqlite",
      "..",
      ".",
      "x",
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), async (segments) => {
        const requested = segments.join("/");
        let resolved: string;
        try {
          resolved = await resolveInWorkspace(hiddenRoot, requested, hidden);
        } catch (error) {
          expect(error).toBeInstanceOf(WorkspacePathError);
          return;
        }
        for (const hiddenPath of hidden) {
          expect(isInsideDirectory(hiddenPath, resolved), `${requested} -> ${resolved}`).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
