/**
 * Markdown of model and user text, rendered to HTML by markdown-it with raw HTML off: every
 * `<`, `>` and `&` of the text is escaped, so text can never add markup or scripts of its own.
 * Links open in a new tab without a referrer.
 */
import MarkdownIt from "markdown-it";
import { memo } from "react";

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false });
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

/** Rendered markdown. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it escapes all HTML of the text (html: false).
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: markdown.render(text) }} />;
});
