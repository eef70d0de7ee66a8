/**
 * `list_files`: the entries of a workspace directory, optionally recursive.
 *
 * Boundary rule: the walk never follows symbolic links (a link is listed, with its target, but
 * not entered), so it cannot leave the workspace or loop; it stops after `MAX_LIST_ENTRIES`
 * entries and says so. Hidden paths (the daemon's private data) are listed by name with a
 * `[hidden]` mark, never opened or entered, so the listing agrees with what `ls` shows in the
 * sandbox (an empty directory or an unreadable file there) and explains why they cannot be used.
 */
import type { Dirent } from "node:fs";
import { opendir, readlink } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../model/tools.js";
import { argumentsSchema, textArgument } from "./argument-schema.js";
import { fileError } from "./file-error.js";
import { type HiddenPaths, hiddenPathCovering } from "./hidden-paths.js";
import { truncateText } from "./output-limit.js";
import { PinnedDirectory } from "./pinned-directory.js";
import { type WorkspaceTool, workspaceTool } from "./tool-kind.js";
import { startDirectory, workspaceRelative } from "./workspace-path.js";

/** Most entries one call lists. */
export const MAX_LIST_ENTRIES = 1000;
/** Directories a recursive listing shows but does not enter (list them explicitly to see inside). */
export const UNENTERED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);
/** Follows a hidden entry (e.g. the daemon's home inside the workspace) in a listing. */
export const HIDDEN_MARK = "[hidden]";

/** Arguments of `list_files`. */
export interface ListFilesInput {
  path?: string;
  recursive?: boolean;
}

const inputSchema = argumentsSchema({
  path: textArgument("Directory to list, relative to the workspace root (default: the root)."),
  recursive: { type: "boolean", description: "Also list subdirectories' contents (default false)." },
});

const description =
  "List a workspace directory. Paths are relative to the workspace root; directories end with '/', " +
  "symbolic links show their target ('link -> target'); entries marked [hidden] are the daemon's private " +
  "data and cannot be read, changed or entered. A recursive listing does not enter .git or " +
  `node_modules and stops after ${MAX_LIST_ENTRIES} entries.`;

/** The `list_files` tool, confined to a workspace and kept off its hidden paths. */
export const listFilesTool: WorkspaceTool = workspaceTool("list_files", inputSchema, description, listFiles);

async function listFiles(workspace: string, hidden: HiddenPaths, input: ListFilesInput): Promise<string> {
  const requested = input.path ?? ".";
  const { realRoot, start } = await startDirectory(workspace, hidden, requested);

  const listing: Listing = {
    realRoot,
    hidden,
    requested,
    recursive: input.recursive === true,
    lines: [],
    stopped: false,
  };
  const directory = await PinnedDirectory.openBeneath(realRoot, start, requested);
  try {
    await listDirectory(listing, directory);
  } finally {
    await directory.close();
  }
  const { lines, stopped } = listing;
  if (lines.length === 0) return "(empty directory)";
  const note = stopped
    ? `\n[listing stopped after ${MAX_LIST_ENTRIES} entries; list a subdirectory to see more]`
    : "";
  return truncateText(lines.join("\n")) + note;
}

interface Listing {
  realRoot: string;
  hidden: HiddenPaths;
  requested: string;
  recursive: boolean;
  lines: string[];
  stopped: boolean;
}

/**
 * Pre-order walk: each directory's contents follow it, in name order; stops at the bound. A
 * hidden entry is listed with a mark and never entered, read or described further.
 */
async function listDirectory(listing: Listing, directory: PinnedDirectory): Promise<void> {
  for (const entry of await sortedEntries(directory, listing.requested)) {
    if (listing.lines.length >= MAX_LIST_ENTRIES) {
      listing.stopped = true;
      return;
    }
    const absolute = path.join(directory.path, entry.name);
    const shown = workspaceRelative(listing.realRoot, absolute);
    if (hiddenPathCovering(listing.hidden, absolute) !== undefined) {
      listing.lines.push(`${shown}${entry.isDirectory() ? "/" : ""} ${HIDDEN_MARK}`);
      continue;
    }
    listing.lines.push(await describeEntry(directory, shown, entry));
    if (listing.recursive && entry.isDirectory() && !UNENTERED_DIRECTORIES.has(entry.name)) {
      try {
        const child = await directory.child(entry.name, listing.requested);
        try {
          await listDirectory(listing, child);
        } finally {
          await child.close();
        }
      } catch (error) {
        // One unreadable subdirectory should not hide the rest of the listing.
        if (!(error instanceof ToolError)) throw error;
        listing.lines.push(`[${shown}/ could not be read]`);
      }
      if (listing.stopped) return;
    }
  }
}

async function sortedEntries(directory: PinnedDirectory, requested: string): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  try {
    for await (const entry of await opendir(directory.self)) entries.push(entry);
  } catch (error) {
    throw fileError(requested, error);
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function describeEntry(directory: PinnedDirectory, shown: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${shown}/`;
  if (entry.isSymbolicLink()) {
    const target = await readlink(directory.entry(entry.name)).catch(() => "?");
    return `${shown} -> ${target}`;
  }
  return shown;
}
