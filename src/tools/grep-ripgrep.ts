/**
 * The ripgrep `grep` engine: runs `rg --json` with a fixed argument list (no shell), in the
 * searched directory, and reads its matches.
 *
 * Boundary rule: ripgrep sees the tree the way `walkFiles` does: `.gitignore` files inside the
 * searched directory only (`--no-ignore-parent`, `--no-require-git`, no global, `.ignore` or
 * exclude files), dotfiles searched (`--hidden`) but `.git` never, symlinks not followed, and
 * each hidden path inside the directory excluded by an anchored `!` glob (results under one are
 * dropped again here). It starts in the directory through its descriptor, so a directory swapped
 * for a symlink cannot move the search, and runs with only `PATH` in its environment and no
 * config file.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../model/tools.js";
import { COMMAND_PATH } from "./bubblewrap.js";
import {
  GREP_TIMEOUT_MS,
  type GrepMatch,
  type GrepSearch,
  MAX_GREP_FILE_BYTES,
  shownLine,
  visibleResult,
} from "./grep-search.js";
import { isInsideDirectory } from "./path-containment.js";
import { PinnedDirectory } from "./pinned-directory.js";

/** Where ripgrep is, or null: the first `rg` in `PATH` or the system directories. */
export function findRipgrep(searchPath: string = process.env.PATH ?? ""): string | null {
  const directories = [...searchPath.split(":"), ...COMMAND_PATH.split(":")].filter((entry) =>
    path.isAbsolute(entry),
  );
  for (const directory of directories) {
    const candidate = path.join(directory, "rg");
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** A glob that matches `relative` literally (gitignore syntax, anchored at the searched directory). */
function literalGlob(relative: string): string {
  return `/${relative
    .split(path.sep)
    .join("/")
    .replace(/[\\*?[\]{}!]/g, (special) => `\\${special}`)}`;
}

/** ripgrep's arguments for `search`, searching `operand` from the working directory. */
export function ripgrepArguments(search: GrepSearch, operand: string): string[] {
  const excluded = search.hidden
    .filter((hidden) => search.target === "directory" && isInsideDirectory(search.start, hidden))
    .filter((hidden) => hidden !== search.start)
    .flatMap((hidden) => ["--glob", `!${literalGlob(path.relative(search.start, hidden))}`]);
  return [
    "--json",
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--no-ignore-parent",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--no-ignore-dot",
    "--max-filesize",
    String(MAX_GREP_FILE_BYTES),
    "--glob",
    "!.git",
    ...excluded,
    "--regexp",
    search.pattern,
    "--",
    operand,
  ];
}

/** Calls `found` with every matching line ripgrep reports for `search` that `keep` keeps. */
export async function searchWithRipgrep(
  ripgrep: string,
  search: GrepSearch,
  keep: (relative: string) => boolean,
  found: (match: GrepMatch) => void,
): Promise<void> {
  const where = search.target === "file" ? path.dirname(search.start) : search.start;
  const directory = await PinnedDirectory.openBeneath(search.realRoot, where, search.requested);
  try {
    const operand = search.target === "file" ? path.basename(search.start) : "./";
    await runRipgrep(ripgrep, ripgrepArguments(search, operand), directory.self, search, (match) => {
      const relative = search.target === "file" ? "" : match.path.replace(/^\.\//, "");
      const kept = keep(search.target === "file" ? path.basename(search.start) : relative);
      if (kept && visibleResult(search, relative)) found({ ...match, path: relative });
    });
  } finally {
    await directory.close();
  }
}

function runRipgrep(
  ripgrep: string,
  args: string[],
  cwd: string,
  search: GrepSearch,
  found: (match: GrepMatch) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrep, args, {
      cwd,
      env: { PATH: COMMAND_PATH },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let pending = "";
    let stderr = "";
    let stopped: string | null = null;
    const stop = (why: string) => {
      stopped ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => stop(`grep: the search took longer than ${GREP_TIMEOUT_MS / 1000} s; narrow the path or glob`),
      GREP_TIMEOUT_MS,
    );
    const onAbort = () => stop("grep: the search was stopped");
    search.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const match = parseMatchMessage(line);
        if (match !== null) found(match);
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      search.signal.removeEventListener("abort", onAbort);
      reject(new ToolError("execution_failed", `grep: cannot run ripgrep: ${error.message}`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      search.signal.removeEventListener("abort", onAbort);
      if (stopped !== null) reject(new ToolError("execution_failed", stopped));
      else if (code === 2 && /regex|parse error/i.test(stderr))
        reject(new ToolError("invalid_argument", `grep: ripgrep refused the pattern: ${stderr.trim()}`));
      else resolve();
    });
  });
}

/** The match in one line of `rg --json` output, or null for any other message. */
export function parseMatchMessage(line: string): GrepMatch | null {
  if (!line.startsWith('{"type":"match"')) return null;
  const message = JSON.parse(line) as {
    data: { path: TextOrBytes; lines: TextOrBytes; line_number: number | null };
  };
  return {
    path: textOf(message.data.path),
    line: message.data.line_number ?? 0,
    text: shownLine(textOf(message.data.lines)),
  };
}

type TextOrBytes = { text: string } | { bytes: string };

function textOf(value: TextOrBytes): string {
  return "text" in value ? value.text : Buffer.from(value.bytes, "base64").toString("utf8");
}
