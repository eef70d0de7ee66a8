/**
 * What the page shows of a tool call besides its name: a one-line subject (the path, command,
 * search, URL, plan or patch) and, for file edits, the diff (a whole `apply_patch` as one diff,
 * file after file).
 */
import type { ReactElement } from "react";
import { FileDiff } from "./file-diff.js";

type Arguments = Record<string, unknown> | null;

function text(args: Arguments, key: string): string | null {
  return typeof args?.[key] === "string" ? (args[key] as string) : null;
}

interface PatchEdit {
  path: string;
  old_text?: string;
  new_text: string;
}

function patchEdits(args: Arguments): PatchEdit[] | null {
  if (!Array.isArray(args?.edits)) return null;
  const edits: PatchEdit[] = [];
  for (const edit of args.edits as unknown[]) {
    if (typeof edit !== "object" || edit === null) return null;
    const { path, old_text: oldText, new_text: newText } = edit as Record<string, unknown>;
    if (typeof path !== "string" || typeof newText !== "string") return null;
    edits.push(
      typeof oldText === "string"
        ? { path, old_text: oldText, new_text: newText }
        : { path, new_text: newText },
    );
  }
  return edits;
}

/** The one-line subject of a call, or null when its arguments do not give one. */
export function toolSubject(tool: string, args: Arguments): string | null {
  const where = text(args, "path") === null ? "" : ` in ${text(args, "path")}`;
  switch (tool) {
    case "grep":
      return text(args, "pattern") === null
        ? null
        : `/${text(args, "pattern")}/${where}${text(args, "glob") === null ? "" : ` (${text(args, "glob")})`}`;
    case "glob":
      return text(args, "pattern") === null ? null : `${text(args, "pattern")}${where}`;
    case "web_fetch":
      return text(args, "url");
    case "todo_write":
      return Array.isArray(args?.todos) ? `${args.todos.length} items` : null;
    case "apply_patch": {
      const edits = patchEdits(args);
      if (edits === null) return null;
      const paths = [...new Set(edits.map((edit) => edit.path))];
      return `${edits.length} edit${edits.length === 1 ? "" : "s"}: ${paths.join(", ")}`;
    }
    default:
      return text(args, "path") ?? text(args, "command");
  }
}

/** Whether a call of `tool` changes files (its arguments show as a diff). */
export function isFileEdit(tool: string | undefined): boolean {
  return tool === "edit_file" || tool === "write_file" || tool === "apply_patch";
}

/** The diff a file-editing call's arguments make, or null for any other call (or arguments that do not say). */
export function toolEdits(tool: string | undefined, args: Arguments): ReactElement | null {
  if (tool === "edit_file" && typeof args?.old_text === "string" && typeof args.new_text === "string") {
    return <FileDiff before={args.old_text} after={args.new_text} />;
  }
  if (tool === "write_file" && typeof args?.content === "string")
    return <FileDiff before="" after={args.content} />;
  const edits = tool === "apply_patch" ? patchEdits(args) : null;
  if (edits === null) return null;
  return (
    <div className="patch">
      {edits.map((edit, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a call's edits never reorder.
        <div key={index} className="patch-edit">
          <code className="tool-subject">
            {edit.path}
            {edit.old_text === undefined ? " (new file)" : ""}
          </code>
          <FileDiff before={edit.old_text ?? ""} after={edit.new_text} />
        </div>
      ))}
    </div>
  );
}
