/**
 * A walk over the regular files below a workspace directory, the way `grep` and `glob` see them:
 * `.gitignore` honoured, `.git` never entered, hidden paths (the daemon's private data) neither
 * entered nor listed, symbolic links not followed (neither listed nor entered).
 *
 * Boundary rule: every directory is opened beneath the previous one through a `PinnedDirectory`
 * (no symlink followed on the way), and a file is reached only through its directory's
 * descriptor, so a directory swapped for a symlink mid-walk cannot lead outside the workspace.
 */
import type { Dirent } from "node:fs";
import { constants } from "node:fs";
import { open, opendir } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../model/tools.js";
import { GitignoreStack } from "./gitignore-rules.js";
import { type HiddenPaths, hiddenPathCovering } from "./hidden-paths.js";
import { PinnedDirectory } from "./pinned-directory.js";

/** Directory names a walk never enters, whatever `.gitignore` says. */
const NEVER_WALKED: ReadonlySet<string> = new Set([".git"]);

/** One regular file found by `walkFiles`. */
export interface WalkedFile {
  /** Its path from the walked directory, "/"-separated. */
  relative: string;
  /** A path that opens it through its directory's descriptor; valid only during the visit. */
  reachable: string;
}

/** What a walk needs besides its start. */
export interface WalkOptions {
  realRoot: string;
  hidden: HiddenPaths;
  /** Stops the walk (with a `ToolError`) when aborted. */
  signal: AbortSignal;
  /** Files visited at once within one directory. */
  concurrency?: number;
}

/**
 * Calls `visit` for each regular file below `start` (a real directory inside `realRoot`, as
 * `resolveInWorkspace` returns it); `requested` is the path as the model wrote it.
 */
export async function walkFiles(
  start: string,
  requested: string,
  options: WalkOptions,
  visit: (file: WalkedFile) => Promise<void>,
): Promise<void> {
  const directory = await PinnedDirectory.openBeneath(options.realRoot, start, requested);
  try {
    await walkDirectory(directory, "", GitignoreStack.empty, options, visit);
  } finally {
    await directory.close();
  }
}

async function walkDirectory(
  directory: PinnedDirectory,
  relative: string,
  inherited: GitignoreStack,
  options: WalkOptions,
  visit: (file: WalkedFile) => Promise<void>,
): Promise<void> {
  if (options.signal.aborted) throw new ToolError("execution_failed", "the search was stopped");
  const entries = await readEntries(directory);
  if (entries === null) return;
  const rules = await withGitignore(directory, entries, relative, inherited, options.hidden);
  const files: WalkedFile[] = [];
  const subdirectories: string[] = [];
  for (const entry of entries) {
    const entryRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
    const isDirectory = entry.isDirectory();
    if (!isDirectory && !entry.isFile()) continue;
    if (NEVER_WALKED.has(entry.name)) continue;
    if (hiddenPathCovering(options.hidden, path.join(directory.path, entry.name)) !== undefined) continue;
    if (rules.ignores(entryRelative, isDirectory)) continue;
    if (isDirectory) subdirectories.push(entry.name);
    else files.push({ relative: entryRelative, reachable: directory.entry(entry.name) });
  }
  const concurrency = options.concurrency ?? 8;
  for (let at = 0; at < files.length; at += concurrency) {
    await Promise.all(files.slice(at, at + concurrency).map(visit));
  }
  for (const name of subdirectories) {
    let child: PinnedDirectory;
    try {
      child = await directory.child(name, name);
    } catch (error) {
      // A directory that cannot be opened (permissions, gone) is skipped, as ripgrep skips it.
      if (error instanceof ToolError) continue;
      throw error;
    }
    try {
      await walkDirectory(child, relative === "" ? name : `${relative}/${name}`, rules, options, visit);
    } finally {
      await child.close();
    }
  }
}

async function readEntries(directory: PinnedDirectory): Promise<Dirent[] | null> {
  const entries: Dirent[] = [];
  try {
    for await (const entry of await opendir(directory.self)) entries.push(entry);
  } catch {
    return null;
  }
  return entries;
}

async function withGitignore(
  directory: PinnedDirectory,
  entries: readonly Dirent[],
  relative: string,
  inherited: GitignoreStack,
  hidden: HiddenPaths,
): Promise<GitignoreStack> {
  if (hiddenPathCovering(hidden, path.join(directory.path, ".gitignore")) !== undefined) return inherited;
  if (!entries.some((entry) => entry.name === ".gitignore" && entry.isFile())) return inherited;
  const bytes = await readWithoutFollowing(directory.entry(".gitignore"));
  return bytes === null ? inherited : inherited.with(relative, bytes.toString("utf8"));
}

/**
 * The bytes of the regular file at `reachable` (a path through a directory descriptor), never
 * through a symlink nor blocking on a FIFO; null when it cannot be read, is not a regular file or
 * is larger than `maxBytes`.
 */
export async function readWithoutFollowing(
  reachable: string,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<Buffer | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(reachable, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > maxBytes) return null;
    return await handle.readFile();
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}
