/**
 * An `apply_patch` call as file edits: what each file it touches holds before and after, so the
 * whole patch shows as one diff (one file after another) for approval and in the transcript.
 *
 * Boundary rule: pure; the files' current text comes from the caller's `read`, as for
 * `fileEditOf`. An edit whose old text is not where the file says shows as that replacement alone.
 */
import { toolArgumentsObject } from "../../model/tool-arguments.js";
import type { FileEdit } from "./file-edit.js";

/** One edit of an `apply_patch` call's arguments. */
interface PatchEditArguments {
  path: string;
  old_text?: string;
  new_text: string;
}

/** The edits of an `apply_patch` call's arguments (an object or its JSON text), or null when they do not say. */
export function patchEditArguments(args: unknown): PatchEditArguments[] | null {
  const value = typeof args === "string" ? toolArgumentsObject(args) : args;
  if (typeof value !== "object" || value === null) return null;
  const edits = (value as { edits?: unknown }).edits;
  if (!Array.isArray(edits)) return null;
  const parsed: PatchEditArguments[] = [];
  for (const edit of edits as unknown[]) {
    if (typeof edit !== "object" || edit === null) return null;
    const { path, old_text: oldText, new_text: newText } = edit as Record<string, unknown>;
    if (typeof path !== "string" || typeof newText !== "string") return null;
    if (oldText !== undefined && typeof oldText !== "string") return null;
    parsed.push(
      oldText === undefined ? { path, new_text: newText } : { path, old_text: oldText, new_text: newText },
    );
  }
  return parsed;
}

/**
 * The file edits an `apply_patch` call makes, one per file in the order first touched, from its
 * arguments and the files' current text (`read` answers null for none); null for arguments that
 * do not say. With `read` answering null throughout, each edit shows its old text against its new.
 */
export function patchFileEdits(args: unknown, read: (path: string) => string | null): FileEdit[] | null {
  const edits = patchEditArguments(args);
  if (edits === null) return null;
  const files = new Map<string, FileEdit>();
  const loose: FileEdit[] = [];
  for (const edit of edits) {
    let file = files.get(edit.path);
    if (file === undefined) {
      const before = edit.old_text === undefined ? null : read(edit.path);
      file = { path: edit.path, before, after: before ?? "" };
      files.set(edit.path, file);
    }
    if (edit.old_text === undefined) {
      file.after = edit.new_text;
    } else if (file.after.includes(edit.old_text)) {
      const newText = edit.new_text;
      file.after = file.after.replace(edit.old_text, () => newText);
    } else {
      loose.push({ path: edit.path, before: withNewline(edit.old_text), after: withNewline(edit.new_text) });
    }
  }
  const whole = [...files.values()].filter((file) => file.before !== null || file.after !== "");
  return [...whole, ...loose];
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}
