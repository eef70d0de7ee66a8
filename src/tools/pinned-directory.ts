/**
 * A workspace directory held open by a descriptor, reached from the workspace root one
 * component at a time without following any symbolic link.
 *
 * Why: the agent's shell can swap a directory for a symlink between the moment a file tool
 * checks a path (`resolveInWorkspace`) and the moment it opens it. Every step here opens
 * `/proc/self/fd/N/<name>` with O_NOFOLLOW, which the kernel resolves inside the directory that
 * descriptor N holds (the effect of openat), so a component swapped for a symlink fails instead of
 * leading elsewhere, and the file a tool finally opens, creates or renames through `entry()` is
 * the one that was checked: inside the workspace, never a hidden path. Only directories are
 * opened on the way. Where /proc is not mounted, plain paths are used and that guarantee is lost.
 */
import { constants, existsSync } from "node:fs";
import { type FileHandle, lstat, mkdir, open } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../model/tools.js";
import { fileError } from "./file-error.js";
import { errorCode, errorMessage } from "./system-error.js";
import { WorkspacePathError } from "./workspace-path.js";

const DESCRIPTOR_DIRECTORY = "/proc/self/fd";
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

/** Whether `/proc/self/fd/N/name` can stand in for openat on this machine (checked once). */
const descriptorPathsWork = existsSync(DESCRIPTOR_DIRECTORY);

/** An open directory inside the workspace; close it when done. */
export class PinnedDirectory {
  private constructor(
    /** The directory's real path, as checked. */
    readonly path: string,
    private readonly handle: FileHandle | null,
  ) {}

  /**
   * Opens `realDirectory` (a real path inside `realRoot`, as `resolveInWorkspace` returns it),
   * walking down from the root without following symlinks; with `create`, missing directories
   * on the way are made. `requested` is the path as the model wrote it, for messages.
   */
  static async openBeneath(
    realRoot: string,
    realDirectory: string,
    requested: string,
    options: { create: boolean } = { create: false },
  ): Promise<PinnedDirectory> {
    const relative = path.relative(realRoot, realDirectory);
    if (relative.startsWith("..") || path.isAbsolute(relative)) {
      throw new WorkspacePathError(
        "outside_workspace",
        requested,
        realRoot,
        `path "${requested}" is outside the workspace`,
      );
    }
    let current: PinnedDirectory;
    try {
      current = new PinnedDirectory(
        realRoot,
        descriptorPathsWork ? await open(realRoot, DIRECTORY_FLAGS) : null,
      );
    } catch (error) {
      throw fileError(requested, error);
    }
    for (const name of relative === "" ? [] : relative.split(path.sep)) {
      try {
        const next = await current.child(name, requested, options);
        await current.close();
        current = next;
      } catch (error) {
        await current.close();
        throw error;
      }
    }
    return current;
  }

  /** A path naming `name` inside this directory, resolved through the descriptor. */
  entry(name: string): string {
    return this.handle === null
      ? path.join(this.path, name)
      : `${DESCRIPTOR_DIRECTORY}/${this.handle.fd}/${name}`;
  }

  /** A path naming this directory itself, resolved through the descriptor. */
  get self(): string {
    return this.handle === null ? this.path : `${DESCRIPTOR_DIRECTORY}/${this.handle.fd}`;
  }

  /** Opens the subdirectory `name` (never through a symlink); with `create`, makes it first if missing. */
  async child(
    name: string,
    requested: string,
    options: { create: boolean } = { create: false },
  ): Promise<PinnedDirectory> {
    const childPath = path.join(this.path, name);
    if (options.create) {
      try {
        await mkdir(this.entry(name));
      } catch (error) {
        if (errorCode(error) !== "EEXIST") {
          throw new ToolError(
            "execution_failed",
            `cannot create the directory for "${requested}": ${errorMessage(error)}`,
          );
        }
      }
    }
    if (this.handle === null) return new PinnedDirectory(childPath, null);
    try {
      return new PinnedDirectory(
        childPath,
        await open(this.entry(name), DIRECTORY_FLAGS | constants.O_NOFOLLOW),
      );
    } catch (error) {
      // O_DIRECTORY | O_NOFOLLOW on a symlink fails with ENOTDIR (or ELOOP): lstat tells which.
      const code = errorCode(error);
      const swapped =
        (code === "ELOOP" || code === "ENOTDIR") &&
        (await lstat(this.entry(name)).then(
          (stats) => stats.isSymbolicLink(),
          () => false,
        ));
      if (swapped) {
        throw new WorkspacePathError(
          "symlink_escape",
          requested,
          this.path,
          `path "${requested}" changed while being opened (a directory on the way became a symbolic link)`,
        );
      }
      throw fileError(requested, error);
    }
  }

  /** Releases the descriptor. */
  async close(): Promise<void> {
    await this.handle?.close();
  }
}
