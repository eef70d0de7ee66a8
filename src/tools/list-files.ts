/**
 * `list_files`: the entries of a workspace directory, optionally recursive.
 *
 * Boundary rule: the walk never follows symbolic links (a link is listed, with its target, but
 * not entered), so it cannot leave the workspace or loop; it stops after `MAX_LIST_ENTRIES`
 * entries and says so.
 */
import type { Dirent } from "node:fs";
import { lstat, opendir, readlink } from "node:fs/promises";
import path from "node:path";
import type { JsonObject } from "../model/json.js";
import type { ToolDefinition, ToolMeta } from "../model/tools.js";
import { ToolError } from "../model/tools.js";
import { truncateText } from "./output-limit.js";
import { toolInputParser } from "./tool-input.js";
import { fileError } from "./workspace-file.js";
import { realWorkspace, resolveInWorkspace, workspaceRelative } from "./workspace-path.js";

/** Most entries one call lists. */
export const MAX_LIST_ENTRIES = 1000;
/** Directories a recursive listing shows but does not enter (list them explicitly to see inside). */
export const UNENTERED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** Arguments of `list_files`. */
export interface ListFilesInput {
  path?: string;
  recursive?: boolean;
}

const inputSchema: JsonObject = {
  type: "object",
  properties: {
    path: {
      type: "string",
      minLength: 1,
      description: "Directory to list, relative to the workspace root (default: the root).",
    },
    recursive: { type: "boolean", description: "Also list subdirectories' contents (default false)." },
  },
  additionalProperties: false,
};

const meta: ToolMeta = {
  name: "list_files",
  description:
    "List a workspace directory. Paths are relative to the workspace root; directories end with '/', " +
    "symbolic links show their target ('link -> target'). A recursive listing does not enter .git or " +
    `node_modules and stops after ${MAX_LIST_ENTRIES} entries.`,
  input_schema: inputSchema,
};

const parseInput = toolInputParser<ListFilesInput>(meta.name, inputSchema);

/** The `list_files` tool, confined to `workspace`. */
export function listFilesTool(workspace: string): ToolDefinition {
  return () => ({
    meta,
    tool: {
      async execute(inputJson) {
        return listFiles(workspace, parseInput(inputJson));
      },
    },
  });
}

async function listFiles(workspace: string, input: ListFilesInput): Promise<string> {
  const requested = input.path ?? ".";
  const realRoot = await realWorkspace(workspace);
  const start = await resolveInWorkspace(workspace, requested);
  const stats = await lstat(start).catch((error: unknown) => {
    throw fileError(requested, error);
  });
  if (!stats.isDirectory()) throw new ToolError("execution_failed", `"${requested}" is not a directory`);

  const listing: Listing = {
    realRoot,
    requested,
    recursive: input.recursive === true,
    lines: [],
    stopped: false,
  };
  await listDirectory(listing, start);
  const { lines, stopped } = listing;
  if (lines.length === 0) return "(empty directory)";
  const note = stopped
    ? `\n[listing stopped after ${MAX_LIST_ENTRIES} entries; list a subdirectory to see more]`
    : "";
  return truncateText(lines.join("\n")) + note;
}

interface Listing {
  realRoot: string;
  requested: string;
  recursive: boolean;
  lines: string[];
  stopped: boolean;
}

/** Pre-order walk: each directory's contents follow it, in name order; stops at the bound. */
async function listDirectory(listing: Listing, directory: string): Promise<void> {
  for (const entry of await sortedEntries(directory, listing.requested)) {
    if (listing.lines.length >= MAX_LIST_ENTRIES) {
      listing.stopped = true;
      return;
    }
    const absolute = path.join(directory, entry.name);
    listing.lines.push(await describeEntry(listing.realRoot, absolute, entry));
    if (listing.recursive && entry.isDirectory() && !UNENTERED_DIRECTORIES.has(entry.name)) {
      try {
        await listDirectory(listing, absolute);
      } catch (error) {
        // One unreadable subdirectory should not hide the rest of the listing.
        if (!(error instanceof ToolError)) throw error;
        listing.lines.push(`[${workspaceRelative(listing.realRoot, absolute)}/ could not be read]`);
      }
      if (listing.stopped) return;
    }
  }
}

async function sortedEntries(directory: string, requested: string): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  try {
    for await (const entry of await opendir(directory)) entries.push(entry);
  } catch (error) {
    throw fileError(requested, error);
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function describeEntry(realRoot: string, absolute: string, entry: Dirent): Promise<string> {
  const shown = workspaceRelative(realRoot, absolute);
  if (entry.isDirectory()) return `${shown}/`;
  if (entry.isSymbolicLink()) {
    const target = await readlink(absolute).catch(() => "?");
    return `${shown} -> ${target}`;
  }
  return shown;
}
