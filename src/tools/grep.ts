/**
 * `grep`: a regular-expression search of file contents under the workspace or a path in it.
 *
 * Boundary rule: ripgrep runs the search when it is installed (`grep-ripgrep.ts`), the
 * in-process engine otherwise (`grep-in-process.ts`); both see the same files and report
 * through one `MatchCollector`, so the result does not depend on which one ran.
 */
import { lstat } from "node:fs/promises";
import { type ToolDefinition, ToolError } from "../model/tools.js";
import { argumentsSchema, textArgument } from "./argument-schema.js";
import { fileError } from "./file-error.js";
import { searchInProcess } from "./grep-in-process.js";
import { searchWithRipgrep } from "./grep-ripgrep.js";
import {
  GREP_TIMEOUT_MS,
  type GrepSearch,
  globFilter,
  MAX_GREP_MATCHES,
  MatchCollector,
} from "./grep-search.js";
import { type HiddenPaths, NO_HIDDEN_PATHS } from "./hidden-paths.js";
import { toolKind } from "./tool-kind.js";
import { realWorkspace, resolveInWorkspace, workspaceRelative } from "./workspace-path.js";

/** Which engine searches: ripgrep at a path, or the in-process one. */
export type GrepEngine = { kind: "ripgrep"; path: string } | { kind: "in_process" };

/** Arguments of `grep`. */
export interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string;
}

const inputSchema = argumentsSchema(
  {
    pattern: textArgument(
      "Regular expression matched against each line (case-sensitive; write [Aa] or alternatives for other cases).",
    ),
    path: textArgument("File or directory to search, relative to the workspace root (default: the root)."),
    glob: textArgument(
      "Only search files matching this glob, e.g. '*.ts' (a glob without '/' matches file names) or 'src/**/*.test.ts' (matched from the searched directory).",
    ),
  },
  ["pattern"],
);

const description =
  "Search file contents with a regular expression. Returns 'path:line: text' for each matching line, " +
  `sorted by path then line, at most ${MAX_GREP_MATCHES} of them with a note saying how many more there are. ` +
  "Files listed in .gitignore, .git, binary files and the daemon's private data are not searched; " +
  "symbolic links are not followed.";

const grepKind = toolKind<GrepInput>("grep", inputSchema);

/** The `grep` tool for `workspace`, searching with `engine`. */
export function grepTool(
  workspace: string,
  hidden: HiddenPaths = NO_HIDDEN_PATHS,
  engine: GrepEngine,
): ToolDefinition {
  return grepKind(description, (input, context) => grep(workspace, hidden, engine, input, context.signal));
}

/** The pattern as a JavaScript RegExp, or an `invalid_argument` error saying why it is not one. */
export function grepRegex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch (error) {
    throw new ToolError(
      "invalid_argument",
      `grep: invalid regular expression ${JSON.stringify(pattern)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function grep(
  workspace: string,
  hidden: HiddenPaths,
  engine: GrepEngine,
  input: GrepInput,
  signal: AbortSignal,
): Promise<string> {
  const regex = grepRegex(input.pattern);
  const requested = input.path ?? ".";
  const realRoot = await realWorkspace(workspace);
  const start = await resolveInWorkspace(workspace, requested, hidden);
  const stats = await lstat(start).catch((error: unknown) => {
    throw fileError(requested, error);
  });
  if (!stats.isDirectory() && !stats.isFile()) {
    throw new ToolError("execution_failed", `grep: "${requested}" is not a file or directory`);
  }
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(GREP_TIMEOUT_MS)]);
  const search: GrepSearch = {
    pattern: input.pattern,
    regex,
    requested,
    target: stats.isDirectory() ? "directory" : "file",
    start,
    realRoot,
    hidden,
    signal: bounded,
  };
  const collector = new MatchCollector();
  const keep = globFilter(input.glob);
  const found = collector.add.bind(collector);
  if (engine.kind === "ripgrep") await searchWithRipgrep(engine.path, search, keep, found);
  else await searchInProcess(search, keep, found);
  return collector.render(workspaceRelative(realRoot, start));
}
