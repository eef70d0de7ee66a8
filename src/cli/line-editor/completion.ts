/**
 * Tab completion at the chat prompt: `/command` at the start of the prompt, and `@path`
 * mentions (files and folders under the workspace, hidden ones only when asked for by a dot).
 *
 * Boundary rule: computes candidates from the word before the cursor; the editor applies them.
 */
import { readdirSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { type EditBuffer, wordBeforeCursor } from "./edit-buffer.js";

/** What Tab may put in place of `text[start, cursor)`: the candidates, each a whole replacement. */
export interface Completion {
  start: number;
  candidates: string[];
}

export interface CompletionSource {
  /** Slash commands with their leading "/". */
  commands: readonly string[];
  /** The folder `@path` mentions are relative to. */
  workspace: string;
}

const maxCandidates = 200;

/** The completions for the word before the cursor, or null when there are none. */
export function complete(buffer: EditBuffer, source: CompletionSource): Completion | null {
  const { word, start } = wordBeforeCursor(buffer);
  if (word.startsWith("/") && start === 0) {
    const candidates = source.commands.filter((command) => command.startsWith(word));
    return candidates.length === 0 ? null : { start, candidates };
  }
  if (word.startsWith("@")) {
    const candidates = pathCandidates(source.workspace, word.slice(1)).map((path) => `@${path}`);
    return candidates.length === 0 ? null : { start, candidates };
  }
  return null;
}

/** The longest prefix every candidate shares. */
export function commonPrefix(candidates: readonly string[]): string {
  if (candidates.length === 0) return "";
  let prefix = candidates[0]!;
  for (const candidate of candidates) {
    while (!candidate.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}

/** Entries under the workspace whose path starts with `partial` (folders end with "/"). */
function pathCandidates(workspace: string, partial: string): string[] {
  const slash = partial.lastIndexOf("/");
  const folderPart = slash === -1 ? "" : partial.slice(0, slash + 1);
  const namePart = slash === -1 ? partial : partial.slice(slash + 1);
  const root = resolve(workspace);
  const folder = resolve(root, folderPart);
  // Mentions name files of the workspace only.
  if (folder !== root && !folder.startsWith(`${root}${sep}`)) return [];
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  const names = entries
    .filter((entry) => entry.name.startsWith(namePart))
    .filter((entry) => namePart.startsWith(".") || !entry.name.startsWith("."))
    .filter((entry) => entry.name !== "node_modules" || namePart.startsWith("node"))
    .map((entry) => {
      const path = relative(root, join(folder, entry.name)).split(sep).join("/");
      return entry.isDirectory() ? `${path}/` : path;
    })
    .sort();
  return names.slice(0, maxCandidates);
}
