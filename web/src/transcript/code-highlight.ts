/**
 * Syntax colours for fenced code in rendered markdown, through highlight.js (its core and a
 * fixed set of common languages, so the bundle stays small). highlight.js escapes the code and
 * adds only `<span class="hljs-…">` tags; the colours are classes in styles.css (no inline style,
 * which the page's Content-Security-Policy refuses).
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const languages = { bash, css, diff, go, javascript, json, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);

/**
 * The highlighted HTML of a fenced block's code in `language`, or "" (markdown-it then escapes
 * the code itself) when the language is not one loaded here.
 */
export function highlightCode(code: string, language: string): string {
  const name = language.trim().toLowerCase();
  if (name === "" || hljs.getLanguage(name) === undefined) return "";
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
}
