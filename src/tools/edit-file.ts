/**
 * `edit_file`: replaces one exact, unique occurrence of a text in a workspace file.
 *
 * Boundary rule: the edit applies only when `old_text` occurs exactly once (overlapping matches
 * count), so an edit never lands somewhere the model did not mean; the file must be valid UTF-8
 * so that rewriting it cannot corrupt bytes the model never saw.
 */
import { ToolError } from "../model/tools.js";
import { argumentsSchema, textArgument } from "./argument-schema.js";
import type { HiddenPaths } from "./hidden-paths.js";
import { type WorkspaceTool, workspaceTool } from "./tool-kind.js";
import { openRegularFile, replaceFileAtomically } from "./workspace-file.js";
import { filePathArgument, realWorkspace, resolveInWorkspace, workspaceRelative } from "./workspace-path.js";

/** Largest file `edit_file` will load. */
export const MAX_EDIT_FILE_BYTES = 16 * 1024 * 1024;

/** Arguments of `edit_file`. */
export interface EditFileInput {
  path: string;
  old_text: string;
  new_text: string;
}

const inputSchema = argumentsSchema(
  {
    path: filePathArgument,
    old_text: textArgument(
      "Exact text to replace, including whitespace; it must occur exactly once in the file.",
    ),
    new_text: { type: "string", description: "Text to put in its place." },
  },
  ["path", "old_text", "new_text"],
);

const description =
  "Replace one exact occurrence of old_text with new_text in a workspace file. old_text must match " +
  "the file byte for byte (whitespace and indentation included) and occur exactly once; if it occurs " +
  "more than once, include more surrounding lines to make it unique.";

/** The `edit_file` tool, confined to a workspace and kept off its hidden paths. */
export const editFileTool: WorkspaceTool = workspaceTool("edit_file", inputSchema, description, editFile);

/** Every start index of `needle` in `haystack`, overlapping ones included. */
export function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    found.push(at);
  }
  return found;
}

async function editFile(workspace: string, hidden: HiddenPaths, input: EditFileInput): Promise<string> {
  const realRoot = await realWorkspace(workspace);
  const absolute = await resolveInWorkspace(workspace, input.path, hidden);
  const original = await readUtf8(realRoot, absolute, input.path);
  const matches = occurrences(original, input.old_text);
  const shown = workspaceRelative(realRoot, absolute);
  if (matches.length !== 1) {
    const found = matches.length === 0 ? "was not found" : `matches ${matches.length} places`;
    const hint =
      matches.length === 0
        ? "it must match the file exactly, including whitespace"
        : "include more surrounding text so it matches exactly one place";
    throw new ToolError(
      "execution_failed",
      `edit_file: old_text ${found} in ${shown}; ${hint}. The file is unchanged.`,
    );
  }
  const at = matches[0] ?? 0;
  const updated = original.slice(0, at) + input.new_text + original.slice(at + input.old_text.length);
  await replaceFileAtomically(realRoot, absolute, input.path, updated);
  const line = lineCount(original.slice(0, at));
  return (
    `edited ${shown}: replaced ${lineCount(input.old_text)} line(s) at line ${line} ` +
    `with ${lineCount(input.new_text)} line(s)`
  );
}

async function readUtf8(realRoot: string, absolute: string, requested: string): Promise<string> {
  const handle = await openRegularFile(realRoot, absolute, requested);
  try {
    const { size } = await handle.stat();
    if (size > MAX_EDIT_FILE_BYTES) {
      throw new ToolError(
        "execution_failed",
        `"${requested}" is ${size} bytes; edit_file handles files up to ${MAX_EDIT_FILE_BYTES} bytes`,
      );
    }
    const bytes = await handle.readFile();
    if (bytes.includes(0)) throw new ToolError("execution_failed", `"${requested}" looks like a binary file`);
    try {
      // ignoreBOM keeps a byte-order mark in the text so the rewrite preserves it.
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new ToolError(
        "execution_failed",
        `"${requested}" is not valid UTF-8; edit_file edits UTF-8 text only`,
      );
    }
  } finally {
    await handle.close();
  }
}

/** Number of lines a text spans (1 for text without a newline). */
function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}
