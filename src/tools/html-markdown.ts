/**
 * HTML as Markdown for the model, by turndown: headings `#`, fenced code, and no script, style
 * or other content a reader never sees.
 *
 * turndown (with its DOM, about 0.5 MB of code that builds an HTML parser when it loads) is
 * loaded at the first conversion, not with the daemon: most daemons never fetch a page, and
 * every start paid for it. The daemon's bundle leaves it out for the same reason.
 */
import type TurndownService from "turndown";

let converter: Promise<TurndownService> | null = null;

async function makeConverter(): Promise<TurndownService> {
  const { default: Turndown } = await import("turndown");
  return new Turndown({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  }).remove(["script", "style", "noscript", "template", "iframe", "head"]);
}

/** The Markdown of an HTML document or fragment. */
export async function htmlToMarkdown(html: string): Promise<string> {
  // A failed load is not kept: the next page tries again.
  converter ??= makeConverter().catch((error: unknown) => {
    converter = null;
    throw error;
  });
  const turndown = await converter;
  // turndown walks the whole document, head included (its <title> would lead the text): convert
  // the body alone when there is one.
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return turndown.turndown(body).trim();
}
