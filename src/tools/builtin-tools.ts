/**
 * The tools the daemon gives every session's agent, all confined to that session's workspace.
 *
 * Boundary rule: this is the one place that decides which built-in tools exist for a session;
 * `run_command` is included only when `chooseShell` offers a shell (see shell-mode.ts).
 */
import path from "node:path";
import type { ToolDefinition } from "../model/tools.js";
import { editFileTool } from "./edit-file.js";
import { listFilesTool } from "./list-files.js";
import { readFileTool } from "./read-file.js";
import { runCommandTool } from "./run-command.js";
import { chooseShell, type ShellChoiceOptions } from "./shell-mode.js";
import { writeFileTool } from "./write-file.js";

/** Options for `builtinTools`; see `chooseShell` for how `shell` is decided when omitted. */
export type BuiltinToolsOptions = ShellChoiceOptions;

/** A workspace that cannot confine anything. */
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
 * Built-in tool definitions for one session: read_file, write_file, edit_file, list_files and,
 * when a shell is offered, run_command. `workspace` must be an absolute path other than "/".
 */
export function builtinTools(workspace: string, options: BuiltinToolsOptions = {}): ToolDefinition[] {
  if (!path.isAbsolute(workspace)) {
    throw new WorkspaceConfigurationError(workspace, `workspace "${workspace}" must be an absolute path`);
  }
  if (path.resolve(workspace) === path.parse(workspace).root) {
    throw new WorkspaceConfigurationError(workspace, "the filesystem root cannot be a workspace");
  }
  const tools = [
    readFileTool(workspace),
    writeFileTool(workspace),
    editFileTool(workspace),
    listFilesTool(workspace),
  ];
  const shell = chooseShell(options);
  if (shell.mode !== "off") tools.push(runCommandTool(workspace, shell));
  return tools;
}
