/**
 * `glob`: the workspace files whose path matches a glob, newest first.
 *
 * Boundary rule: files are found by `walkFiles` (so `.gitignore` is honoured, `.git` and hidden
 * paths are skipped, symlinks are not followed) and matched by `globFilter`, the same rules as
 * `grep`'s `glob`; at most `MAX_GLOB_RESULTS` paths are returned, with a note for the rest.
 */
import { lstat } from "node:fs/promises";
import { argumentsSchema, textArgument } from "./argument-schema.js";
import { globFilter } from "./grep-search.js";
import type { HiddenPaths } from "./hidden-paths.js";
import { type WorkspaceTool, workspaceTool } from "./tool-kind.js";
import { startDirectory, workspaceRelative } from "./workspace-path.js";
import { walkFiles } from "./workspace-walk.js";

/** Most paths one call returns. */
export const MAX_GLOB_RESULTS = 200;
/** How long one walk may take. */
export const GLOB_TIMEOUT_MS = 30_000;

/** Arguments of `glob`. */
export interface GlobInput {
  pattern: string;
  path?: string;
}

const inputSchema = argumentsSchema(
  {
    pattern: textArgument(
      "Glob such as '**/*.ts' or 'src/**/test_*.py', matched against paths from the searched directory; a glob without '/' (e.g. '*.md') matches file names at any depth.",
    ),
    path: textArgument("Directory to search, relative to the workspace root (default: the root)."),
  },
  ["pattern"],
);

const description =
  "Find files by name or path pattern. Returns workspace-relative paths, most recently modified first, " +
  `at most ${MAX_GLOB_RESULTS} of them with a note saying how many more there are. Files listed in ` +
  ".gitignore, .git and the daemon's private data are left out; symbolic links are not followed.";

/** The `glob` tool, confined to a workspace and kept off its hidden paths. */
export const globTool: WorkspaceTool = workspaceTool("glob", inputSchema, description, glob);

interface FoundFile {
  shown: string;
  modified: number;
}

async function glob(workspace: string, hidden: HiddenPaths, input: GlobInput): Promise<string> {
  const requested = input.path ?? ".";
  const { realRoot, start } = await startDirectory(workspace, hidden, requested);
  const prefix = workspaceRelative(realRoot, start);
  const keep = globFilter(input.pattern);
  const found: FoundFile[] = [];
  const signal = AbortSignal.timeout(GLOB_TIMEOUT_MS);
  await walkFiles(start, requested, { realRoot, hidden, signal }, async (file) => {
    if (!keep(file.relative)) return;
    const modified = await lstat(file.reachable).then(
      (entry) => entry.mtimeMs,
      () => null,
    );
    if (modified === null) return;
    found.push({ shown: prefix === "." ? file.relative : `${prefix}/${file.relative}`, modified });
  });
  if (found.length === 0) return "no files match";
  found.sort((a, b) => b.modified - a.modified || (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
  const lines = found.slice(0, MAX_GLOB_RESULTS).map((file) => file.shown);
  const more = found.length - lines.length;
  if (more > 0)
    lines.push(`[${more} more file${more === 1 ? "" : "s"} not shown; narrow the pattern or path]`);
  return lines.join("\n");
}
