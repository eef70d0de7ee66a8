/**
 * File edits as unified diffs for the terminal: `--- a/path`, `+++ b/path`, `@@` hunk headers,
 * removed lines red and added lines green (plain text when colour is off), cut after a number of
 * lines with a note saying how many more there are.
 *
 * Boundary rule: pure formatting; the diff itself is computed by the `diff` package. Where the
 * file's text comes from is the caller's business.
 */
import { createRequire } from "node:module";
import { parseToolArguments } from "../../model/tool-arguments.js";
import type { FileEdit } from "./file-edit.js";
import { patchFileEdits } from "./patch-diff.js";
import type { Paint } from "./terminal.js";

type StructuredPatch = typeof import("diff").structuredPatch;
let loadedPatch: StructuredPatch | null = null;

/** The `diff` package, loaded on the first diff shown (it costs start-up time otherwise). */
function structuredPatch(...args: Parameters<StructuredPatch>): ReturnType<StructuredPatch> {
  loadedPatch ??= (createRequire(import.meta.url)("diff") as { structuredPatch: StructuredPatch })
    .structuredPatch;
  return loadedPatch(...args);
}

export type { FileEdit } from "./file-edit.js";

/** Lines of the unified diff of `edit`, at most `maxLines` of them (the rest summed up in one line). */
export function unifiedDiffLines(paint: Paint, edit: FileEdit, maxLines = 80): string[] {
  const patch = structuredPatch(
    edit.before === null ? "/dev/null" : `a/${edit.path}`,
    `b/${edit.path}`,
    edit.before ?? "",
    edit.after,
    undefined,
    undefined,
    { context: 3 },
  );
  const lines = [paint.bold(`--- ${patch.oldFileName}`), paint.bold(`+++ ${patch.newFileName}`)];
  if (patch.hunks.length === 0) return [...lines, paint.dim("(no change)")];
  for (const hunk of patch.hunks) {
    lines.push(paint.cyan(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`));
    for (const line of hunk.lines) {
      if (line.startsWith("+")) lines.push(paint.green(line));
      else if (line.startsWith("-")) lines.push(paint.red(line));
      else if (line.startsWith("\\")) lines.push(paint.dim(line));
      else lines.push(line);
    }
  }
  if (lines.length <= maxLines) return lines;
  const cut = lines.length - maxLines;
  return [...lines.slice(0, maxLines), paint.dim(`… ${cut} more line${cut === 1 ? "" : "s"} of diff`)];
}

/**
 * The edit a `write_file` or `edit_file` call makes, from its arguments and the file's current
 * text (`read` answers null when there is none to read); null for any other call, or arguments
 * that do not say. An `edit_file` whose old text is not in the file shows the replacement alone.
 */
export function fileEditOf(
  tool: string,
  args: unknown,
  read: (path: string) => string | null,
): FileEdit | null {
  if (typeof args !== "object" || args === null) return null;
  const { path, content, old_text: oldText, new_text: newText } = args as Record<string, unknown>;
  if (typeof path !== "string") return null;
  if (tool === "write_file" && typeof content === "string")
    return { path, before: read(path), after: content };
  if (tool === "edit_file" && typeof oldText === "string" && typeof newText === "string") {
    const before = read(path);
    if (before?.includes(oldText)) {
      return { path, before, after: before.replace(oldText, () => newText) };
    }
    return { path, before: withNewline(oldText), after: withNewline(newText) };
  }
  return null;
}

/**
 * The diff a finished `write_file`, `edit_file` or `apply_patch` call shows in a transcript: what
 * its arguments change (an edit's old text against its new text, a write's content as added
 * lines), at most
 * `maxLines` lines; none for other calls. `args` may be the arguments' JSON text.
 */
export function editDiffLines(
  paint: Paint,
  tool: string,
  args: unknown,
  maxLines = 24,
  /** The file's text right after the edit (a call just finished), for line numbers and context. */
  readAfter: (path: string) => string | null = () => null,
): string[] {
  let value = args;
  if (typeof value === "string") {
    const parsed = parseToolArguments(value);
    if (parsed.kind === "invalid_json") return [];
    value = parsed.value;
  }
  if (tool === "apply_patch") {
    const lines = (patchFileEdits(value, () => null) ?? []).flatMap((edit) => unifiedDiffLines(paint, edit));
    if (lines.length <= maxLines) return lines;
    const cut = lines.length - maxLines;
    return [...lines.slice(0, maxLines), paint.dim(`… ${cut} more line${cut === 1 ? "" : "s"} of diff`)];
  }
  const edit = editInFile(tool, value, readAfter) ?? fileEditOf(tool, value, () => null);
  return edit === null ? [] : unifiedDiffLines(paint, edit, maxLines);
}

/**
 * A just-finished `edit_file` in its file: the text after it, and before it (the new text put
 * back to the old where it occurs once); null when the file does not tell that unambiguously.
 */
function editInFile(
  tool: string,
  args: unknown,
  readAfter: (path: string) => string | null,
): FileEdit | null {
  if (tool !== "edit_file" || typeof args !== "object" || args === null) return null;
  const { path, old_text: oldText, new_text: newText } = args as Record<string, unknown>;
  if (
    typeof path !== "string" ||
    typeof oldText !== "string" ||
    typeof newText !== "string" ||
    newText === ""
  )
    return null;
  const after = readAfter(path);
  if (after === null) return null;
  const at = after.indexOf(newText);
  if (at === -1 || after.indexOf(newText, at + 1) !== -1) return null;
  return { path, before: after.slice(0, at) + oldText + after.slice(at + newText.length), after };
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}
