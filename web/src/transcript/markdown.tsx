/**
 * Markdown of model and user text, rendered to HTML by markdown-it with raw HTML off: every
 * `<`, `>` and `&` of the text is escaped, so text can never add markup or scripts of its own.
 * Links open in a new tab without a referrer. Table cells carry their alignment as a class, not
 * markdown-it's inline `style` attribute, which the page's Content-Security-Policy
 * (`style-src 'self'`) refuses.
 */
import MarkdownIt from "markdown-it";
import { memo } from "react";
import { highlightCode } from "./code-highlight.js";

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false, highlight: highlightCode });
// Only http(s) and mailto links are made; markdown-it already refuses javascript: and data:.
markdown.validateLink = (url) => /^(https?:|mailto:)/i.test(url.trim());
const defaultLinkOpen =
  markdown.renderer.rules.link_open ??
  ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]!.attrSet("target", "_blank");
  tokens[index]!.attrSet("rel", "noopener noreferrer");
  return defaultLinkOpen(tokens, index, options, env, self);
};

/** markdown-it's `style="text-align:X"` on a table cell, as the class `align-X`. */
const alignAsClass: NonNullable<typeof markdown.renderer.rules.th_open> = (
  tokens,
  index,
  options,
  _env,
  self,
) => {
  const token = tokens[index]!;
  const style = token.attrGet("style");
  if (style !== null) {
    const align = /^text-align:(left|right|center)$/.exec(String(style))?.[1];
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== "style");
    if (align !== undefined) token.attrJoin("class", `align-${align}`);
  }
  return self.renderToken(tokens, index, options);
};
markdown.renderer.rules.th_open = alignAsClass;
markdown.renderer.rules.td_open = alignAsClass;

/** Markdown text as HTML (escaped, classes instead of inline styles). */
function renderMarkdown(text: string): string {
  return markdown.render(text);
}

/** Rendered markdown. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it escapes all HTML of the text (html: false).
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
});
