/**
 * The tools the daemon gives every session's agent, all confined to that session's workspace
 * and kept off the hidden paths (the daemon's home and database).
 *
 * Boundary rule: this is the one place that decides which built-in tools exist for a session;
 * `run_command` is included only when `chooseShell` offers a shell (see shell-mode.ts). A
 * workspace that is or lies inside a hidden directory is refused here: its tools could do
 * nothing (every path in it is hidden) and its sandbox would cover it. A workspace that contains
 * a hidden path is fine: the path stays hidden inside it.
 */
import path from "node:path";
import type { ToolDefinition } from "../model/tools.js";
import { applyPatchTool } from "./apply-patch.js";
import { editFileTool } from "./edit-file.js";
import { AddressAllowList } from "./fetch-address.js";
import { globTool } from "./glob.js";
import { type GrepEngine, grepTool } from "./grep.js";
import { findRipgrep } from "./grep-ripgrep.js";
import { type HiddenPaths, hiddenPathCovering, realPathOf, resolveHiddenPaths } from "./hidden-paths.js";
import { listFilesTool } from "./list-files.js";
import { readFileTool } from "./read-file.js";
import { runCommandTool } from "./run-command.js";
import { chooseShell, SANDBOX_NETWORK_ENV, type ShellChoice, type ShellChoiceOptions } from "./shell-mode.js";
import { todoWriteTool } from "./todo-write.js";
import { type WebFetchAccess, webFetchTool } from "./web-fetch.js";
import { writeFileTool } from "./write-file.js";

/** Options for `builtinTools`; see `chooseShell` for how `shell` is decided when omitted. */
export interface BuiltinToolsOptions extends ShellChoiceOptions {
  /**
   * Absolute paths (files or directories, existing or not) no tool may read, change or list the
   * contents of, e.g. the daemon's home with its token and API keys, and its database files.
   */
  hiddenPaths?: readonly string[];
  /** How `grep` searches; default: ripgrep when `findRipgrep` finds it, else in process. */
  grepEngine?: GrepEngine;
  /**
   * Address ranges `web_fetch` may reach although they are private or local (config.json's
   * `webFetch.allowAddresses`), read at each call; default none.
   */
  fetchAllowAddresses?: () => readonly string[];
}

/** A workspace that cannot confine anything, or that lies inside a hidden path. */
export class WorkspaceConfigurationError extends Error {
  constructor(
    readonly workspace: string,
    message: string,
  ) {
    super(message);
    this.name = "WorkspaceConfigurationError";
  }
}

/**
 * Why `workspace` cannot be a session's workspace, or null when it can: it must be an absolute
 * path other than "/" that is not, and does not lie inside, one of `hiddenPaths`.
 */
export function workspaceProblem(workspace: string, hiddenPaths: readonly string[]): string | null {
  if (!path.isAbsolute(workspace)) return `workspace "${workspace}" must be an absolute path`;
  return resolvedWorkspaceProblem(workspace, resolveHiddenPaths(hiddenPaths));
}

/**
 * `workspaceProblem` for an absolute `workspace` and hidden paths already resolved; `covering`
 * answers `hiddenPathCovering` for the workspace's real path (a kit keeps its answers).
 */
function resolvedWorkspaceProblem(
  workspace: string,
  hidden: HiddenPaths,
  covering: (realPath: string) => string | undefined = (realPath) => hiddenPathCovering(hidden, realPath),
): string | null {
  if (path.resolve(workspace) === path.parse(workspace).root)
    return "the filesystem root cannot be a workspace";
  const coveringPath = covering(realPathOf(workspace));
  if (coveringPath === undefined) return null;
  return (
    `workspace "${workspace}" lies inside ${coveringPath}, which holds the daemon's private data and is ` +
    "hidden from the agent; choose a workspace outside it"
  );
}

function requireAbsolute(workspace: string): void {
  if (!path.isAbsolute(workspace)) {
    throw new WorkspaceConfigurationError(workspace, `workspace "${workspace}" must be an absolute path`);
  }
}

/** The built-in tools for any workspace, with the hidden paths resolved and the shell chosen once. */
export interface BuiltinToolKit {
  /** How `run_command` runs (or why it is not offered). */
  readonly shell: ShellChoice;
  /** The hidden paths, resolved when the kit was made. */
  readonly hidden: HiddenPaths;
  /** How `grep` searches. */
  readonly grepEngine: GrepEngine;
  /** The tool definitions for one workspace (see `builtinTools`). */
  toolsFor(workspace: string): ToolDefinition[];
  /** `workspaceProblem` against the kit's hidden paths, resolved once (a route's check of each new session). */
  workspaceProblem(workspace: string): string | null;
}

/**
 * A kit of built-in tools: a daemon makes one and takes each turn's tools from it, rather than
 * resolving every hidden path (a realpath each) and choosing the shell again per turn. Throws
 * `ShellConfigurationError` for shell options `chooseShell` refuses.
 */
export function builtinToolKit(options: BuiltinToolsOptions = {}): BuiltinToolKit {
  const hidden = resolveHiddenPaths(options.hiddenPaths ?? []);
  const shell = chooseShell(options);
  const grepEngine = options.grepEngine ?? defaultGrepEngine();
  const env = options.env ?? process.env;
  const allowAddresses = options.fetchAllowAddresses ?? (() => []);
  const fetchAccess: WebFetchAccess = {
    network:
      env[SANDBOX_NETWORK_ENV] === "1"
        ? { kind: "available" }
        : {
            kind: "none",
            reason: `the operator can give them one with ${SANDBOX_NETWORK_ENV}=1 in its environment`,
          },
    allowList: () => new AddressAllowList(allowAddresses()),
  };
  // The hidden paths are the kit's for good: a real path's answer stays the same (it is asked
  // on every turn of every session). The most real paths kept before starting afresh:
  const maxKeptRealPaths = 1024;
  const coveringByRealPath = new Map<string, string | undefined>();
  const covering = (realPath: string): string | undefined => {
    if (coveringByRealPath.has(realPath)) return coveringByRealPath.get(realPath);
    if (coveringByRealPath.size >= maxKeptRealPaths) coveringByRealPath.clear();
    const found = hiddenPathCovering(hidden, realPath);
    coveringByRealPath.set(realPath, found);
    return found;
  };
  return {
    shell,
    hidden,
    grepEngine,
    toolsFor: (workspace) => {
      requireAbsolute(workspace);
      // The workspace itself is resolved every time: where it points may have changed.
      const problem = resolvedWorkspaceProblem(workspace, hidden, covering);
      if (problem !== null) throw new WorkspaceConfigurationError(workspace, problem);
      const tools = [
        readFileTool(workspace, hidden),
        writeFileTool(workspace, hidden),
        editFileTool(workspace, hidden),
        applyPatchTool(workspace, hidden),
        listFilesTool(workspace, hidden),
        grepTool(workspace, hidden, grepEngine),
        globTool(workspace, hidden),
        todoWriteTool(),
        webFetchTool(fetchAccess),
      ];
      if (shell.mode !== "off") tools.push(runCommandTool(workspace, shell, hidden));
      return tools;
    },
    workspaceProblem: (workspace) =>
      path.isAbsolute(workspace)
        ? resolvedWorkspaceProblem(workspace, hidden)
        : `workspace "${workspace}" must be an absolute path`,
  };
}

function defaultGrepEngine(): GrepEngine {
  const ripgrep = findRipgrep();
  return ripgrep === null ? { kind: "in_process" } : { kind: "ripgrep", path: ripgrep };
}

/**
 * Built-in tool definitions for one session: read_file, write_file, edit_file, apply_patch,
 * list_files, grep, glob, todo_write, web_fetch and, when a shell is offered, run_command. Throws `WorkspaceConfigurationError` for a workspace
 * `workspaceProblem` refuses.
 */
export function builtinTools(workspace: string, options: BuiltinToolsOptions = {}): ToolDefinition[] {
  // Checked before the shell is chosen: a relative workspace is the first problem to report.
  requireAbsolute(workspace);
  return builtinToolKit(options).toolsFor(workspace);
}
