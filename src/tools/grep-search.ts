/**
 * What both `grep` engines share: the search a call asks for, the glob filter, and the matches
 * collected in one order (path, then line) and rendered within bounds.
 *
 * Boundary rule: an engine only finds matching lines; which files count (glob, hidden paths),
 * which matches are shown and how they read is decided here, once, so ripgrep and the in-process
 * engine give the same text for the same tree.
 */
import path from "node:path";
import picomatch from "picomatch";
import { type HiddenPaths, hiddenPathCovering } from "./hidden-paths.js";

/** Most matches one call shows. */
export const MAX_GREP_MATCHES = 200;
/** Longest line text shown for a match, in characters. */
export const MAX_GREP_LINE_CHARS = 300;
/** Files larger than this are not searched. */
export const MAX_GREP_FILE_BYTES = 64 * 1024 * 1024;
/** How long one search may take. */
export const GREP_TIMEOUT_MS = 30_000;

/** One search, as both engines receive it. */
export interface GrepSearch {
  /** The regular expression as the model wrote it (checked to compile as a JavaScript RegExp). */
  pattern: string;
  regex: RegExp;
  /** Whether `start` is a directory (walked) or one file (searched as named). */
  target: "directory" | "file";
  /** The path as the model wrote it, for messages. */
  requested: string;
  /** The real path of the directory or file searched. */
  start: string;
  realRoot: string;
  hidden: HiddenPaths;
  signal: AbortSignal;
}

/** One matching line: its file's path relative to the search's start ("/"-separated), 1-based line. */
export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

/**
 * Which files a glob keeps: matched (picomatch, dotfiles included) against the path from the
 * searched directory, or against the file name alone when the glob has no "/".
 */
export function globFilter(glob: string | undefined): (relative: string) => boolean {
  if (glob === undefined) return () => true;
  const matches = picomatch(glob, { dot: true });
  if (glob.includes("/")) return matches;
  return (relative) => matches(relative.slice(relative.lastIndexOf("/") + 1));
}

/** Whether a file found at `relative` below the search's start is one the model may see. */
export function visibleResult(search: GrepSearch, relative: string): boolean {
  const absolute = search.target === "file" ? search.start : path.join(search.start, relative);
  return hiddenPathCovering(search.hidden, absolute) === undefined;
}

/** A line as shown: no line terminator, at most `MAX_GREP_LINE_CHARS` characters. */
export function shownLine(text: string): string {
  const bare = text.replace(/\r?\n$/, "").replace(/\r$/, "");
  return bare.length > MAX_GREP_LINE_CHARS ? `${bare.slice(0, MAX_GREP_LINE_CHARS)}…` : bare;
}

function byPathThenLine(a: GrepMatch, b: GrepMatch): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.line - b.line;
}

/**
 * The matches of a search in path-then-line order, keeping only the first `MAX_GREP_MATCHES`
 * (engines report files in any order) and counting the rest.
 */
export class MatchCollector {
  private kept: GrepMatch[] = [];
  private total = 0;
  private readonly files = new Set<string>();

  /** Adds one match. */
  add(match: GrepMatch): void {
    this.total++;
    this.files.add(match.path);
    this.kept.push(match);
    if (this.kept.length >= MAX_GREP_MATCHES * 8) this.prune();
  }

  /** The first matches (at most `MAX_GREP_MATCHES`), in order. */
  first(): GrepMatch[] {
    this.prune();
    return this.kept;
  }

  /**
   * The result text: `path:line: text` per match, paths shown from the workspace root through
   * `shownPrefix`, and a note saying how many more matches (in how many files) were left out.
   */
  render(shownPrefix: string): string {
    const shown = this.first();
    if (shown.length === 0) return "no matches";
    const lines = shown.map((match) => `${joinShown(shownPrefix, match.path)}:${match.line}: ${match.text}`);
    const more = this.total - shown.length;
    if (more > 0) {
      const shownFiles = new Set(shown.map((match) => match.path)).size;
      lines.push(
        `[${more} more match${more === 1 ? "" : "es"} not shown (${this.total} in ${this.files.size} files; ` +
          `${shownFiles} shown); narrow the pattern, path or glob]`,
      );
    }
    return lines.join("\n");
  }

  private prune(): void {
    this.kept.sort(byPathThenLine);
    if (this.kept.length > MAX_GREP_MATCHES) this.kept = this.kept.slice(0, MAX_GREP_MATCHES);
  }
}

function joinShown(prefix: string, relative: string): string {
  if (prefix === "" || prefix === ".") return relative;
  return relative === "" ? prefix : `${prefix}/${relative}`;
}
