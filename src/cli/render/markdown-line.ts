/**
 * Markdown of a streamed answer rendered for a terminal, one complete line at a time (an answer
 * arrives in pieces; a line is the largest unit that is final as soon as its newline arrives):
 * headings, emphasis, inline code, links, lists, quotes, rules, and fenced code blocks with
 * syntax colours. What spans lines (a fence) is carried in a small state.
 *
 * Boundary rule: pure formatting of one line given the state before it; only used on a terminal
 * with colour (piped or NO_COLOR output stays the model's text as written).
 */
import { highlightLine } from "./code-highlight.js";
import type { Paint } from "./terminal.js";

/** What an earlier line left open. */
export interface MarkdownState {
  fence: { marker: string; language: string } | null;
}

export function newMarkdownState(): MarkdownState {
  return { fence: null };
}

const fenceLine = /^(\s*)(`{3,}|~{3,})\s*([\w+#.-]*)/;

/** Aliases a fence may use for a language highlight.js knows by another name. */
const aliases: Record<string, string> = {
  ts: "typescript",
  tsx: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  py: "python",
  sh: "bash",
  zsh: "bash",
  console: "shell",
  rs: "rust",
  yml: "yaml",
  html: "xml",
  md: "markdown",
  rb: "ruby",
};

/** `line` (without its newline) as the terminal shows it; `state` is updated for the next line. */
export function renderMarkdownLine(
  line: string,
  state: MarkdownState,
  paint: Paint,
  columns: number,
): string {
  const fence = fenceLine.exec(line);
  if (state.fence !== null) {
    if (fence !== null && fence[2]!.startsWith(state.fence.marker) && line.trim() === fence[2]) {
      state.fence = null;
      return paint.dim(line);
    }
    return state.fence.language === "" ? paint.cyan(line) : highlightLine(paint, state.fence.language, line);
  }
  if (fence !== null) {
    const info = fence[3]!.toLowerCase();
    state.fence = { marker: fence[2]!, language: aliases[info] ?? info };
    return paint.dim(line);
  }
  const heading = /^(#{1,6})\s+(.*)$/.exec(line);
  if (heading !== null) {
    const text = inline(heading[2]!.replace(/\s+#+\s*$/, ""), paint);
    return heading[1] === "#" ? paint.bold(paint.underline(text)) : paint.bold(text);
  }
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return paint.dim("─".repeat(Math.min(columns - 1, 60)));
  const quote = /^(\s*)>\s?(.*)$/.exec(line);
  if (quote !== null) return `${quote[1]}${paint.dim("│")} ${paint.italic(inline(quote[2]!, paint))}`;
  const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
  if (bullet !== null) {
    const box = bullet[2] === undefined ? "" : /x/i.test(bullet[2]) ? "☑ " : "☐ ";
    return `${bullet[1]}${paint.cyan("•")} ${box}${inline(bullet[3]!, paint)}`;
  }
  const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line);
  if (numbered !== null) return `${numbered[1]}${paint.cyan(numbered[2]!)} ${inline(numbered[3]!, paint)}`;
  return inline(line, paint);
}

/** Emphasis, inline code and links within one line (code spans are left as written inside). */
function inline(text: string, paint: Paint): string {
  return text
    .split(/(`+[^`]+`+)/)
    .map((part, index) => {
      if (index % 2 === 1) return paint.cyan(part.replace(/^`+|`+$/g, ""));
      return part
        .replace(/\*\*([^*]+)\*\*|__([^_]+)__/g, (_, a: string | undefined, b: string | undefined) =>
          paint.bold(a ?? b ?? ""),
        )
        .replace(
          /(^|[^\w*])\*([^*\s][^*]*)\*(?!\w)|(^|[^\w_])_([^_\s][^_]*)_(?!\w)/g,
          (...groups: string[]) =>
            groups[1] !== undefined
              ? `${groups[1]}${paint.italic(groups[2]!)}`
              : `${groups[3]}${paint.italic(groups[4]!)}`,
        )
        .replace(/~~([^~]+)~~/g, (_, a: string) => paint.strikethrough(a))
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, url: string) =>
          label === url ? paint.underline(url) : `${paint.underline(label)} ${paint.dim(`(${url})`)}`,
        );
    })
    .join("");
}
