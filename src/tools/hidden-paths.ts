/**
 * Paths no built-in tool may touch, e.g. the daemon's home (token, API keys) and its SQLite
 * database with the `-wal`, `-shm` and `-journal` files next to it; files or directories.
 *
 * Boundary rule: deciding whether a path is hidden uses path text and realpath only; nothing
 * here opens a file. That matters for a live database: a process that opens and closes a SQLite
 * file loses its own POSIX locks on it, so a tool running inside the daemon must refuse such a
 * path before any `open()`, never after.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { isInsideDirectory } from "./path-containment.js";
import { errorCode } from "./system-error.js";

/** Hidden paths as real, absolute, normalized paths (symlinks in their existing part resolved). */
export type HiddenPaths = readonly string[];

/** No hidden paths. */
export const NO_HIDDEN_PATHS: HiddenPaths = [];

/**
 * The real path of `absolute`: symlinks in its longest existing prefix are resolved, the
 * missing rest is appended as written. Uses realpath only.
 */
export function realPathOf(absolute: string): string {
  const missing: string[] = [];
  let existing = path.resolve(absolute);
  for (;;) {
    try {
      return path.join(realpathSync.native(existing), ...missing);
    } catch (error) {
      const code = errorCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
    }
    const parent = path.dirname(existing);
    if (parent === existing) return path.resolve(absolute);
    missing.unshift(path.basename(existing));
    existing = parent;
  }
}

/** Resolves absolute paths (files or directories, existing or not) into a hidden-path set. */
export function resolveHiddenPaths(paths: readonly string[]): HiddenPaths {
  const resolved = new Set<string>();
  for (const hidden of paths) {
    if (!path.isAbsolute(hidden) || hidden.includes("\0")) {
      throw new TypeError(`hidden path ${JSON.stringify(hidden)} must be an absolute path`);
    }
    resolved.add(realPathOf(hidden));
  }
  return [...resolved];
}

/** The hidden path that is `realPath` or contains it, if any (`realPath` must be real and absolute). */
export function hiddenPathCovering(hidden: HiddenPaths, realPath: string): string | undefined {
  return hidden.find((candidate) => isInsideDirectory(candidate, realPath));
}
