/**
 * What of the host's private directories (/tmp, /run) a sandboxed MCP server is shown read-only
 * because its config names something there: a server installed or checked out under /tmp, run
 * as `node /tmp/x/server.js`, or through a loader given as a `file://` URL.
 *
 * The rule: every path its command, args and cwd name (a plain absolute path, a `file://` URL,
 * either as the value of `--option=…`) is resolved, and the project holding it is shown: the
 * nearest directory, from the named one up, holding a project marker (`package.json`,
 * `node_modules`, `pyproject.toml`, `pyvenv.cfg`), or the directory holding the outermost
 * `node_modules` when the path lies inside one (a loader inside `node_modules` needs its
 * neighbours); with no marker, the named directory (the directory holding a named file, or the
 * file itself when it lies directly in the private directory). The search never reaches the
 * private directory itself.
 *
 * Who steers this: the names come from the user's own config.json (0600, in the daemon's
 * home), so what they name is the user's choice. The server's code can change only what it may
 * write (its cwd, the workspace, its own directory, its private /tmp). A named path that lies in
 * one of the writable directories (as written or resolved) shows nothing by itself, the bind
 * shows it already, and the search for its project starts above that directory: a symlink,
 * marker or `node_modules` the server plants there never widens what the next start shows. A
 * named path inside a hidden path (the daemon's home, its database) shows nothing.
 *
 * Boundary rule: `namedPaths` is pure; `programDirectories` reads the host with realpath and
 * lstat only, before the sandbox starts.
 */
import { lstatSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type HiddenPaths, hiddenPathCovering, realPathOf } from "../tools/hidden-paths.js";
import { isInsideDirectory } from "../tools/path-containment.js";

/** Entries whose presence makes a directory a project: its program may need all of it. */
const PROJECT_MARKERS: readonly string[] = ["package.json", "node_modules", "pyproject.toml", "pyvenv.cfg"];

/**
 * The absolute paths `words` name, normalized, each once, in order: a word that is an absolute
 * path or a `file:` URL, or whose text after its first `=` is one (`--import=file:///x`). A
 * relative path names nothing (its base is not known), nor does anything holding a NUL byte.
 */
export function namedPaths(words: readonly string[]): string[] {
  const found = new Set<string>();
  for (const word of words) {
    const equals = word.indexOf("=");
    for (const candidate of equals === -1 ? [word] : [word, word.slice(equals + 1)]) {
      const named = absolutePathOf(candidate);
      if (named !== null) found.add(named);
    }
  }
  return [...found];
}

function absolutePathOf(candidate: string): string | null {
  let named: string;
  if (candidate.startsWith("/")) named = candidate;
  else if (/^file:/i.test(candidate)) {
    try {
      named = fileURLToPath(candidate);
    } catch {
      // Another host, an encoded '/', or no URL at all: Node would not load it either.
      return null;
    }
  } else return null;
  return named.includes("\0") ? null : path.resolve(named);
}

/** What a server's config names, and what the sandbox already gives it. */
export interface ProgramNames {
  /** The command, its args and its cwd (absolute or not; only absolute paths and file URLs count). */
  words: readonly string[];
  /** The server's writable host directories, as configured and as real paths. */
  writable: readonly string[];
  /** The real paths of the private directories (`privateDirectories()`). */
  privates: readonly string[];
  hidden: HiddenPaths;
}

/** The real directories (or files) to show read-only so the server's program can run: see above. */
export function programDirectories(names: ProgramNames): string[] {
  const shown = new Set<string>();
  for (const named of namedPaths(names.words)) {
    const directory = shownFor(named, names);
    if (directory !== null) shown.add(directory);
  }
  return [...shown];
}

function shownFor(named: string, names: ProgramNames): string | null {
  const start = searchStart(named, names);
  if (start === null) return null;
  const { base, from, fallback } = start;
  const holder = names.privates.find((directory) => directory !== base && isInsideDirectory(directory, base));
  if (holder === undefined || hiddenPathCovering(names.hidden, base) !== undefined) return null;
  // A file directly in the private directory: the file alone.
  if (from === holder) return fallback === null ? null : base;
  return projectDirectory(from, holder) ?? fallback;
}

/**
 * Where the search for the project of `named` starts: `base` is the real path it stands for,
 * `from` the first directory looked at, `fallback` what is shown when no project holds it.
 */
interface SearchStart {
  base: string;
  from: string;
  fallback: string | null;
}

function searchStart(named: string, names: ProgramNames): SearchStart | null {
  const lexical = writableHolding(names, named);
  if (lexical !== undefined) return aboveWritable(lexical);
  let real: string;
  try {
    real = realPathOf(named);
  } catch {
    // Not the daemon's to resolve (a directory it cannot enter, a symlink loop): it names nothing.
    return null;
  }
  const resolved = writableHolding(names, real);
  if (resolved !== undefined) return aboveWritable(resolved);
  const stats = lstatOrUndefined(real);
  if (stats === undefined) return null;
  const from = stats.isDirectory() ? real : path.dirname(real);
  return { base: real, from, fallback: from };
}

/** The server may change what lies under a writable directory (it is shown already): look only above it. */
function aboveWritable(writable: string): SearchStart {
  const base = realPathOf(writable);
  return { base, from: path.dirname(base), fallback: null };
}

function writableHolding(names: ProgramNames, candidate: string): string | undefined {
  return names.writable.find((directory) => isInsideDirectory(directory, candidate));
}

/**
 * The project holding `start` below `holder` (a private directory, never returned): the
 * directory holding the outermost `node_modules` on the way, else the nearest one holding a
 * marker; null when there is none.
 */
function projectDirectory(start: string, holder: string): string | null {
  const ancestors: string[] = [];
  for (let directory = start; directory !== holder && isInsideDirectory(holder, directory); ) {
    ancestors.push(directory);
    directory = path.dirname(directory);
  }
  const outermostModules = ancestors.findLast((directory) => path.basename(directory) === "node_modules");
  if (outermostModules !== undefined) {
    const project = path.dirname(outermostModules);
    if (project !== holder) return project;
  }
  return (
    ancestors.find((directory) =>
      PROJECT_MARKERS.some((marker) => lstatOrUndefined(path.join(directory, marker)) !== undefined),
    ) ?? null
  );
}

function lstatOrUndefined(target: string) {
  try {
    return lstatSync(target);
  } catch {
    return undefined;
  }
}
