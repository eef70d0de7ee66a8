/**
 * The filesystem a sandboxed command sees, as bubblewrap mount arguments.
 *
 * Boundary rule: the host's root is read-only; /tmp, /run and /var/run (where services keep
 * their Unix sockets) are private, empty tmpfs mounts; the workspace is the one writable host
 * directory; hidden paths are covered after the workspace bind, so a workspace that contains
 * them cannot uncover them: a directory by an empty read-only tmpfs, a file by /dev/null (which
 * the sandbox cannot open: its device nodes are unusable there).
 *
 * Inside the workspace the shell could otherwise move a hidden path aside: renaming a directory
 * moves the mounts inside it along, and the next command would find the daemon's home or
 * database at a path nobody hides. So every directory between the workspace and a hidden path
 * is bound onto itself (a mount point cannot be renamed), and a hidden file that does not exist
 * yet (SQLite's `-journal`, say) is covered all the same: bwrap leaves an empty placeholder
 * file on the host, and the shell cannot plant a file SQLite would read at the next start.
 */
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import type { HiddenPaths } from "./hidden-paths.js";
import { isInsideDirectory } from "./path-containment.js";

/** Host directories replaced by a private, empty tmpfs (a symlink, like Debian's /var/run, counts once). */
export const PRIVATE_DIRECTORIES: readonly string[] = ["/tmp", "/run", "/var/run"];

/** The real paths of the private directories that exist on this host, without duplicates or nesting. */
export function privateDirectories(): string[] {
  const found: string[] = [];
  for (const directory of PRIVATE_DIRECTORIES) {
    let real: string;
    try {
      real = realpathSync.native(directory);
      if (!lstatSync(real).isDirectory()) continue;
    } catch {
      continue;
    }
    if (!found.some((known) => isInsideDirectory(known, real))) found.push(real);
  }
  return found;
}

/** Mounts of the sandbox with no workspace: what the probe checks. */
export function baseMountArguments(): string[] {
  return [
    ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
    ...privateDirectories().flatMap((directory) => ["--tmpfs", directory]),
  ];
}

/**
 * Mounts of the sandbox for `realWorkspace` (real, absolute), which must not lie inside a hidden
 * path. Order matters: a later mount covers an earlier one.
 */
export function workspaceMountArguments(realWorkspace: string, hidden: HiddenPaths): string[] {
  return writableMountArguments([realWorkspace], hidden);
}

/**
 * Mounts of a sandbox whose writable host directories are `realWritables` (real, absolute, none
 * inside a hidden path) and which may also read `realReadables` (real, absolute paths inside the
 * private directories, which otherwise hide them; a private directory itself is never shown):
 * the read-only root, the private directories, each readable path bound read-only, each writable
 * directory bound, then every hidden path covered.
 */
export function writableMountArguments(
  realWritables: readonly string[],
  hidden: HiddenPaths,
  realReadables: readonly string[] = [],
): string[] {
  const privates = privateDirectories();
  const writables = outermostPaths(realWritables);
  // Elsewhere the read-only root shows them already; inside a writable directory, so does its bind.
  const readables = outermostPaths(realReadables).filter(
    (candidate) =>
      privates.some((directory) => directory !== candidate && isInsideDirectory(directory, candidate)) &&
      !writables.some((directory) => isInsideDirectory(directory, candidate)),
  );
  const shown = [...readables, ...writables];
  // A private directory that holds a shown path goes first, so the bind shows through.
  const holding = privates.filter((directory) => shown.some((inner) => isInsideDirectory(directory, inner)));
  const others = privates.filter((directory) => !holding.includes(directory));
  const covers = hiddenCovers(writables, readables, hidden, privates);
  const pinned = [...new Set(covers.flatMap((cover) => cover.pinnedAncestors))].sort(
    (a, b) => a.length - b.length,
  );
  return [
    ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
    ...holding.flatMap((directory) => ["--tmpfs", directory]),
    // Before the writable binds: a writable directory inside a readable one stays writable.
    ...readables.flatMap((readable) => ["--ro-bind", readable, readable]),
    ...writables.flatMap((directory) => ["--bind", directory, directory]),
    ...others.flatMap((directory) => ["--tmpfs", directory]),
    ...pinned.flatMap((directory) => ["--bind", directory, directory]),
    ...covers.flatMap((cover) =>
      cover.kind === "directory"
        ? ["--tmpfs", cover.path, "--remount-ro", cover.path]
        : ["--ro-bind", "/dev/null", cover.path],
    ),
  ];
}

/** How one hidden path is covered in the sandbox. */
interface HiddenCover {
  path: string;
  kind: "directory" | "file";
  /** Directories strictly between the writable directory and the hidden path, bound onto themselves. */
  pinnedAncestors: string[];
}

function hiddenCovers(
  writables: readonly string[],
  readables: readonly string[],
  hidden: HiddenPaths,
  privates: readonly string[],
): HiddenCover[] {
  const covers: HiddenCover[] = [];
  for (const hiddenPath of outermostPaths(hidden)) {
    const holder = writables.find((directory) => isInsideDirectory(directory, hiddenPath));
    const shownReadOnly = readables.some((readable) => isInsideDirectory(readable, hiddenPath));
    // Outside every shown path, a private tmpfs already hides it.
    if (
      holder === undefined &&
      !shownReadOnly &&
      privates.some((directory) => isInsideDirectory(directory, hiddenPath))
    )
      continue;
    const stats = lstatOrUndefined(hiddenPath);
    if (stats === undefined) {
      // A missing path outside the writable directories sits on a read-only mount: nothing in the sandbox can create it.
      if (holder === undefined || !lstatOrUndefined(path.dirname(hiddenPath))?.isDirectory()) continue;
    }
    covers.push({
      path: hiddenPath,
      kind: stats?.isDirectory() === true ? "directory" : "file",
      pinnedAncestors: holder === undefined ? [] : ancestorsBetween(holder, hiddenPath),
    });
  }
  return covers;
}

/** The paths of `paths` that no other one contains, each once. */
function outermostPaths(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter(
    (candidate) => !unique.some((other) => other !== candidate && isInsideDirectory(other, candidate)),
  );
}

/** Directories strictly between `root` and `inner` (inside it), outermost first. */
function ancestorsBetween(root: string, inner: string): string[] {
  const ancestors: string[] = [];
  for (let directory = path.dirname(inner); directory !== root && isInsideDirectory(root, directory); ) {
    ancestors.unshift(directory);
    directory = path.dirname(directory);
  }
  return ancestors;
}

function lstatOrUndefined(target: string) {
  try {
    return lstatSync(target);
  } catch {
    return undefined;
  }
}
