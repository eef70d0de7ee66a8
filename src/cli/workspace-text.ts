/**
 * Reading a workspace file's text from the CLI's own side (an `@path` mention's attachment, the
 * "before" of an edit's diff): only regular files inside the session's workspace (symbolic links
 * resolved first), up to a size, UTF-8 text without NUL bytes; anything else is skipped, saying why.
 *
 * Boundary rule: reads only what the person or the transcript named, never writes.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** A file's text, or why it was skipped. */
export type WorkspaceText = { kind: "text"; text: string } | { kind: "skipped"; reason: string };

/** The text of `file` (relative to `workspace`, or absolute inside it), at most `maxBytes`. */
export function readWorkspaceText(workspace: string, file: string, maxBytes: number): WorkspaceText {
  let real: string;
  let root: string;
  try {
    root = realpathSync(workspace);
    real = realpathSync(path.resolve(root, file));
  } catch {
    return { kind: "skipped", reason: "no such file" };
  }
  const relative = path.relative(root, real);
  if (relative.startsWith("..") || path.isAbsolute(relative)) {
    return { kind: "skipped", reason: "outside the workspace" };
  }
  try {
    const stats = statSync(real);
    if (!stats.isFile()) return { kind: "skipped", reason: "not a file" };
    if (stats.size > maxBytes) return { kind: "skipped", reason: `larger than ${maxBytes / 1024} KiB` };
    const bytes = readFileSync(real);
    if (bytes.includes(0)) return { kind: "skipped", reason: "not text" };
    return { kind: "text", text: bytes.toString("utf8") };
  } catch (error) {
    return { kind: "skipped", reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Diffs show files up to this size. */
const displayMaxBytes = 1024 * 1024;

/** A reader of text files under `workspace` for display: their text, or null when skipped. */
export function workspaceTextReader(workspace: string): (file: string) => string | null {
  return (file) => {
    const read = readWorkspaceText(workspace, file, displayMaxBytes);
    return read.kind === "text" ? read.text : null;
  };
}
