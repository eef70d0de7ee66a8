/**
 * Syntax colours for code blocks in answers, through highlight.js (loaded on the first code
 * block, with a fixed set of common languages, so chats without code never pay for it).
 *
 * Boundary rule: turns one line of code into a coloured line; highlight.js's HTML (only `<span
 * class>` tags and five entities) is mapped to the terminal's colours here.
 */
import { createRequire } from "node:module";
import type { Paint } from "./terminal.js";

/**
 * The part of highlight.js used here, typed locally: its own type declarations pull the DOM
 * library into the whole program.
 */
interface HLJSApi {
  registerLanguage(name: string, language: unknown): void;
  getLanguage(name: string): object | undefined;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

/** Language modules loaded, by the name highlight.js registers them under. */
const languages: Record<string, string> = {
  bash: "bash",
  c: "c",
  cpp: "cpp",
  css: "css",
  diff: "diff",
  go: "go",
  java: "java",
  javascript: "javascript",
  json: "json",
  markdown: "markdown",
  python: "python",
  ruby: "ruby",
  rust: "rust",
  shell: "shell",
  sql: "sql",
  typescript: "typescript",
  xml: "xml",
  yaml: "yaml",
};

let loaded: HLJSApi | null = null;

function highlighter(): HLJSApi {
  if (loaded !== null) return loaded;
  const require = createRequire(import.meta.url);
  const core = require("highlight.js/lib/core") as HLJSApi;
  for (const [name, module] of Object.entries(languages)) {
    core.registerLanguage(name, require(`highlight.js/lib/languages/${module}`) as unknown);
  }
  loaded = core;
  return core;
}

/** One line of code with colours (as given when the language is unknown). */
export function highlightLine(paint: Paint, language: string, line: string): string {
  const hljs = highlighter();
  if (hljs.getLanguage(language) === undefined) return line;
  const html = hljs.highlight(line, { language, ignoreIllegals: true }).value;
  return htmlToAnsi(paint, html);
}

function styleOf(paint: Paint, className: string): (text: string) => string {
  const name = className.replace(/^hljs-/, "").split(/\s+/)[0] ?? "";
  switch (name) {
    case "keyword":
    case "selector-tag":
    case "literal":
    case "doctag":
      return paint.magenta;
    case "built_in":
    case "type":
    case "class":
      return paint.cyan;
    case "string":
    case "regexp":
    case "addition":
    case "symbol":
      return paint.green;
    case "number":
    case "bullet":
      return paint.yellow;
    case "comment":
    case "quote":
    case "meta":
      return paint.dim;
    case "title":
    case "section":
    case "function":
      return paint.blue;
    case "attr":
    case "attribute":
    case "property":
    case "variable":
    case "template-variable":
    case "params":
      return paint.cyan;
    case "deletion":
      return paint.red;
    default:
      return (text) => text;
  }
}

/** highlight.js's markup as terminal colours: each run of text takes its innermost span's style. */
function htmlToAnsi(paint: Paint, html: string): string {
  const stack: ((text: string) => string)[] = [];
  let out = "";
  for (const token of html.split(/(<span class="[^"]*">|<\/span>)/)) {
    if (token.startsWith("<span")) {
      stack.push(styleOf(paint, /class="([^"]*)"/.exec(token)?.[1] ?? ""));
    } else if (token === "</span>") {
      stack.pop();
    } else if (token !== "") {
      const text = token
        .replaceAll("&lt;", "<")
        .replaceAll("&gt;", ">")
        .replaceAll("&quot;", '"')
        .replaceAll("&#x27;", "'")
        .replaceAll("&amp;", "&");
      const style = stack.at(-1);
      out += style === undefined ? text : style(text);
    }
  }
  return out;
}
