/**
 * HTML as Markdown for the model, by turndown: headings `#`, fenced code, and no script, style
 * or other content a reader never sees.
 */
import TurndownService from "turndown";

let converter: TurndownService | null = null;

/** The Markdown of an HTML document or fragment. */
export function htmlToMarkdown(html: string): string {
  converter ??= new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  }).remove(["script", "style", "noscript", "template", "iframe", "head"]);
  // turndown walks the whole document, head included (its <title> would lead the text): convert
  // the body alone when there is one.
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return converter.turndown(body).trim();
}
