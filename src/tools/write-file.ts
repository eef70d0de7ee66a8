/**
 * `write_file`: creates or replaces a file in the workspace.
 *
 * Boundary rule: the target and every directory created for it are inside the workspace
 * (resolved by `resolveInWorkspace`); the write is atomic (temporary file + rename).
 */

import { argumentsSchema } from "./argument-schema.js";
import type { HiddenPaths } from "./hidden-paths.js";
import { type WorkspaceTool, workspaceTool } from "./tool-kind.js";
import { replaceFileAtomically } from "./workspace-file.js";
import { filePathArgument, realWorkspace, resolveInWorkspace, workspaceRelative } from "./workspace-path.js";

/** Arguments of `write_file`. */
export interface WriteFileInput {
  path: string;
  content: string;
}

const inputSchema = argumentsSchema(
  {
    path: filePathArgument,
    content: { type: "string", description: "The file's complete new content." },
  },
  ["path", "content"],
);

const description =
  "Create a file in the workspace, or replace an existing file's whole content. Missing parent " +
  "directories are created. To change part of a file, prefer edit_file.";

/** The `write_file` tool, confined to a workspace and kept off its hidden paths. */
export const writeFileTool: WorkspaceTool = workspaceTool("write_file", inputSchema, description, writeFile);

async function writeFile(workspace: string, hidden: HiddenPaths, input: WriteFileInput): Promise<string> {
  const realRoot = await realWorkspace(workspace);
  const absolute = await resolveInWorkspace(workspace, input.path, hidden);
  const result = await replaceFileAtomically(realRoot, absolute, input.path, input.content);
  const verb = result.created ? "created" : "replaced";
  return `${verb} ${workspaceRelative(realRoot, absolute)} (${result.bytes} bytes)`;
}
