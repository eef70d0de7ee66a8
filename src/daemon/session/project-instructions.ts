/**
 * Project instructions: the `AGENTS.md` (or, failing that, `CLAUDE.md`) a project keeps for
 * coding agents, found for a new session's workspace and added to its system prompt.
 *
 * Precedence: the directories are searched from the workspace upward to the repository root
 * (the nearest directory holding `.git`, itself included); without a repository, the workspace
 * alone. The first directory holding either file wins, and within it `AGENTS.md` beats
 * `CLAUDE.md`; only that one file is used. At most `maxInstructionBytes` of it are read.
 *
 * Boundary rule: a file that is or leads (through a symlink) into a hidden path (the daemon's
 * home, its database) is never opened; only regular files are read.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import path from "node:path";
import type { SessionInstructions } from "../../log/entries.js";
import { type HiddenPaths, hiddenPathCovering } from "../../tools/hidden-paths.js";
import { utf8Prefix } from "../../tools/output-limit.js";

/** The file names looked for in each directory, in order of precedence. */
const instructionFileNames = ["AGENTS.md", "CLAUDE.md"] as const;

/** The most bytes of an instruction file added to a system prompt (32 KiB). */
export const maxInstructionBytes = 32 * 1024;

/** An instruction file found for a workspace: where, how big, and the text that is used. */
export interface ProjectInstructions extends SessionInstructions {
  /** The file's text, cut at `maxInstructionBytes` (on a character boundary) when longer. */
  text: string;
}

/**
 * Find the project instructions of `workspace` (an absolute directory), or null when there are
 * none. `hidden`: the hidden paths, resolved (`resolveHiddenPaths`; a daemon resolves them once).
 */
export function findProjectInstructions(
  workspace: string,
  options: { hidden: HiddenPaths; maxBytes?: number },
): ProjectInstructions | null {
  const { hidden } = options;
  const maxBytes = options.maxBytes ?? maxInstructionBytes;
  for (const directory of searchedDirectories(path.resolve(workspace))) {
    for (const name of instructionFileNames) {
      const found = readInstructions(path.join(directory, name), hidden, maxBytes);
      if (found === "absent") continue;
      return found;
    }
  }
  return null;
}

/** The system prompt with the instructions appended. */
export function withInstructions(systemPrompt: string, instructions: ProjectInstructions): string {
  const cut = instructions.truncated
    ? `\n\n[... the file is ${instructions.bytes} bytes; only its first ${Buffer.byteLength(instructions.text)} are shown]`
    : "";
  return (
    `${systemPrompt}\n\n` +
    `The project's instructions for agents, from ${instructions.path}:\n\n` +
    `${instructions.text}${cut}`
  );
}

/** The workspace and its parents up to the repository root; the workspace alone outside a repository. */
function searchedDirectories(workspace: string): string[] {
  const chain: string[] = [];
  for (let directory = workspace; ; directory = path.dirname(directory)) {
    chain.push(directory);
    if (exists(path.join(directory, ".git"))) return chain;
    if (path.dirname(directory) === directory) return [workspace];
  }
}

/**
 * The instructions in `file`; "absent" when there is no such regular file (or it is hidden, or
 * unreadable), null when it is there but blank (the search ends: that file wins and says nothing).
 */
function readInstructions(
  file: string,
  hidden: readonly string[],
  maxBytes: number,
): ProjectInstructions | null | "absent" {
  // Most directories hold neither file: asked without an exception (a thrown ENOENT costs more
  // than the lookup), and `realpath` below still decides for whatever is there.
  let real: string;
  try {
    if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return "absent";
    real = realpathSync.native(file);
  } catch {
    return "absent";
  }
  if (hiddenPathCovering(hidden, real) !== undefined) return "absent";
  let descriptor: number;
  try {
    descriptor = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return "absent";
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) return "absent";
    // One byte past the cap, so a character the cap splits can be seen and left out.
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes + 1));
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(descriptor, buffer, read, buffer.length - read, read);
      if (count === 0) break;
      read += count;
    }
    const text = utf8Prefix(buffer.subarray(0, read), maxBytes);
    if (text.trim() === "") return null;
    return { path: file, bytes: stats.size, truncated: stats.size > maxBytes, text };
  } catch {
    return "absent";
  } finally {
    closeSync(descriptor);
  }
}

function exists(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
