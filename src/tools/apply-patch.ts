/**
 * `apply_patch`: several edits across workspace files in one call, all or nothing.
 *
 * The patch is a JSON list of edits, applied in order: `{path, old_text, new_text}` replaces the
 * one exact occurrence of `old_text` in the file as the earlier edits left it (as `edit_file`
 * does); `{path, new_text}` without `old_text` creates a file that must not exist yet.
 *
 * Boundary rule: every edit is checked against the files' current contents before anything is
 * written; one that does not apply fails the call and no file changes. Files are then written
 * through `replaceFileAtomically`; should a write fail part-way (a full disk), the files already
 * written are put back as they were.
 */
import { lstat, unlink } from "node:fs/promises";
import { ToolError } from "../model/tools.js";
import { argumentsSchema, textArgument } from "./argument-schema.js";
import { MAX_EDIT_FILE_BYTES, occurrences } from "./edit-file.js";
import { fileError } from "./file-error.js";
import type { HiddenPaths } from "./hidden-paths.js";
import { errorCode } from "./system-error.js";
import { type WorkspaceTool, workspaceTool } from "./tool-kind.js";
import { openRegularFile, replaceFileAtomically } from "./workspace-file.js";
import { filePathArgument, realWorkspace, resolveInWorkspace, workspaceRelative } from "./workspace-path.js";

/** Most edits one call may carry. */
export const MAX_PATCH_EDITS = 100;

/** One edit of a patch: a replacement in a file, or (without `old_text`) a new file. */
export interface PatchEdit {
  path: string;
  old_text?: string;
  new_text: string;
}

/** Arguments of `apply_patch`. */
export interface ApplyPatchInput {
  edits: PatchEdit[];
}

const inputSchema = argumentsSchema(
  {
    edits: {
      type: "array",
      minItems: 1,
      maxItems: MAX_PATCH_EDITS,
      description: "The edits, applied in order; a later edit of a file sees the earlier ones.",
      items: argumentsSchema(
        {
          path: filePathArgument,
          old_text: textArgument(
            "Exact text to replace (whitespace included); it must occur exactly once in the file. Omit it to create a new file.",
          ),
          new_text: { type: "string", description: "Text to put in its place, or the new file's content." },
        },
        ["path", "new_text"],
      ),
    },
  },
  ["edits"],
);

const description =
  "Apply several edits across workspace files at once, all or nothing: each edit is " +
  "{path, old_text, new_text} (replace the one exact occurrence of old_text, as edit_file does) or " +
  "{path, new_text} (create a file that does not exist yet). Edits apply in order, so a second edit of " +
  "a file sees the first. If any edit does not apply, no file is changed and the error says which one.";

/** The `apply_patch` tool, confined to a workspace and kept off its hidden paths. */
export const applyPatchTool: WorkspaceTool = workspaceTool(
  "apply_patch",
  inputSchema,
  description,
  applyPatch,
);

/** One file the patch touches: where it is, what it held (null: absent) and what it will hold. */
interface PatchedFile {
  absolute: string;
  requested: string;
  before: string | null;
  after: string;
}

async function applyPatch(workspace: string, hidden: HiddenPaths, input: ApplyPatchInput): Promise<string> {
  const realRoot = await realWorkspace(workspace);
  const files = new Map<string, PatchedFile>();
  for (const [index, edit] of input.edits.entries()) {
    const absolute = await resolveInWorkspace(workspace, edit.path, hidden);
    let file = files.get(absolute);
    if (file === undefined) {
      const before = await readIfPresent(realRoot, absolute, edit.path);
      file = { absolute, requested: edit.path, before, after: before ?? "" };
      files.set(absolute, file);
    }
    file.after = editedText(file, edit, index, workspaceRelative(realRoot, absolute));
  }
  await writeAll(realRoot, [...files.values()]);
  const summary = [...files.values()].map(
    (file) => `${file.before === null ? "created" : "edited"} ${workspaceRelative(realRoot, file.absolute)}`,
  );
  return `applied ${input.edits.length} edit(s) to ${files.size} file(s): ${summary.join(", ")}`;
}

function editedText(file: PatchedFile, edit: PatchEdit, index: number, shown: string): string {
  const which = `edit ${index + 1} (${shown})`;
  if (edit.old_text === undefined) {
    if (file.before !== null || file.after !== "") {
      throw refused(`${which} has no old_text, so it creates the file, but the file already exists`);
    }
    return edit.new_text;
  }
  const matches = occurrences(file.after, edit.old_text);
  if (matches.length !== 1) {
    const found =
      file.before === null && file.after === ""
        ? "the file does not exist"
        : matches.length === 0
          ? "old_text was not found (it must match exactly, whitespace included)"
          : `old_text matches ${matches.length} places (include more surrounding text)`;
    throw refused(`${which}: ${found}`);
  }
  const at = matches[0] ?? 0;
  return file.after.slice(0, at) + edit.new_text + file.after.slice(at + edit.old_text.length);
}

function refused(reason: string): ToolError {
  return new ToolError("execution_failed", `apply_patch: ${reason}. No file was changed.`);
}

async function readIfPresent(realRoot: string, absolute: string, requested: string): Promise<string | null> {
  const present = await lstat(absolute).then(
    () => true,
    (error: unknown) => {
      const code = errorCode(error);
      if (code === "ENOENT" || code === "ENOTDIR") return false;
      throw fileError(requested, error);
    },
  );
  if (!present) return null;
  const handle = await openRegularFile(realRoot, absolute, requested);
  try {
    const { size } = await handle.stat();
    if (size > MAX_EDIT_FILE_BYTES)
      throw refused(`"${requested}" is ${size} bytes, over ${MAX_EDIT_FILE_BYTES}`);
    const bytes = await handle.readFile();
    if (bytes.includes(0)) throw refused(`"${requested}" looks like a binary file`);
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw refused(`"${requested}" is not valid UTF-8`);
    }
  } finally {
    await handle.close();
  }
}

async function writeAll(realRoot: string, files: readonly PatchedFile[]): Promise<void> {
  const written: PatchedFile[] = [];
  try {
    for (const file of files) {
      await replaceFileAtomically(realRoot, file.absolute, file.requested, file.after);
      written.push(file);
    }
  } catch (error) {
    for (const file of written.reverse()) {
      if (file.before === null) await unlink(file.absolute).catch(() => undefined);
      else
        await replaceFileAtomically(realRoot, file.absolute, file.requested, file.before).catch(
          () => undefined,
        );
    }
    const why = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      "execution_failed",
      `apply_patch: a write failed (${why}); the files written before it were put back`,
    );
  }
}
