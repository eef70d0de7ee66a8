/**
 * Reading a workspace file's text for display (the "before" of an edit's diff), from the CLI's
 * own side: only regular files inside the session's workspace (symbolic links resolved first),
 * at most 1 MiB, UTF-8. Anything else reads as absent.
 *
 * Boundary rule: display only; nothing read here is sent anywhere.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

const maxBytes = 1024 * 1024;

/** A reader of text files under `workspace`: their text, or null when absent, outside, too large or unreadable. */
export function workspaceTextReader(workspace: string): (file: string) => string | null {
  return (file) => {
    try {
      const root = realpathSync(workspace);
      const real = realpathSync(path.resolve(root, file));
      const relative = path.relative(root, real);
      if (relative.startsWith("..") || path.isAbsolute(relative)) return null;
      const stats = statSync(real);
      if (!stats.isFile() || stats.size > maxBytes) return null;
      return readFileSync(real, "utf8");
    } catch {
      return null;
    }
  };
}
