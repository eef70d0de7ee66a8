/**
 * `write_file`: creates or replaces a file in the workspace.
 *
 * Boundary rule: the target and every directory created for it are inside the workspace
 * (resolved by `resolveInWorkspace`); the write is atomic (temporary file + rename).
 */
import type { JsonObject } from "../model/json.js";
import type { ToolDefinition, ToolMeta } from "../model/tools.js";
import { type HiddenPaths, NO_HIDDEN_PATHS } from "./hidden-paths.js";
import { toolInputParser } from "./tool-input.js";
import { replaceFileAtomically } from "./workspace-file.js";
import { realWorkspace, resolveInWorkspace, workspaceRelative } from "./workspace-path.js";

/** Arguments of `write_file`. */
export interface WriteFileInput {
  path: string;
  content: string;
}

const inputSchema: JsonObject = {
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, description: "File path, relative to the workspace root." },
    content: { type: "string", description: "The file's complete new content." },
  },
  required: ["path", "content"],
  additionalProperties: false,
};

const meta: ToolMeta = {
  name: "write_file",
  description:
    "Create a file in the workspace, or replace an existing file's whole content. Missing parent " +
    "directories are created. To change part of a file, prefer edit_file.",
  input_schema: inputSchema,
};

const parseInput = toolInputParser<WriteFileInput>(meta.name, inputSchema);

/** The `write_file` tool, confined to `workspace` and kept off the `hidden` paths. */
export function writeFileTool(workspace: string, hidden: HiddenPaths = NO_HIDDEN_PATHS): ToolDefinition {
  return () => ({
    meta,
    tool: {
      async execute(inputJson) {
        const input = parseInput(inputJson);
        const realRoot = await realWorkspace(workspace);
        const absolute = await resolveInWorkspace(workspace, input.path, hidden);
        const result = await replaceFileAtomically(realRoot, absolute, input.path, input.content);
        const verb = result.created ? "created" : "replaced";
        return `${verb} ${workspaceRelative(realRoot, absolute)} (${result.bytes} bytes)`;
      },
    },
  });
}
