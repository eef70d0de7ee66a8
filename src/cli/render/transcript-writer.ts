/**
 * The writing side of the transcript view: streamed paragraphs and whole lines on the text and
 * aside streams, each write told to whoever shares the terminal (the chat prompt), answers
 * rendered as markdown line by line when asked.
 *
 * Boundary rule: where text goes and how lines end; what to show, and whether it was shown
 * already, is the view's.
 */
import { type MarkdownState, newMarkdownState, renderMarkdownLine } from "./markdown-line.js";
import type { OutputStream } from "./terminal.js";
import { visibleWidth } from "./text-shape.js";
import type { TranscriptViewOptions } from "./transcript-view-options.js";

/** Which stream a delta belongs to: the answer, or the model's thinking. */
export type DeltaKind = "text" | "thinking";

/** The options the writer uses: the streams, markdown, the busy indicator and the write hooks. */
export type TranscriptWriterOptions = Pick<
  TranscriptViewOptions,
  "text" | "aside" | "markdown" | "spinner" | "surroundWrites"
>;

/** Writes the transcript's paragraphs and lines, keeping track of which line is left open. */
export class TranscriptWriter {
  readonly #options: TranscriptWriterOptions;
  readonly #openLine = new Map<OutputStream, boolean>();
  /** The paragraph being streamed into ("<kind>:<message id>"), or null after a full line. */
  #paragraph: string | null = null;
  /** The answer paragraph being rendered as markdown: its key, what spans lines, the raw line shown so far. */
  #markdown: { key: string; state: MarkdownState; partial: string } | null = null;

  constructor(options: TranscriptWriterOptions) {
    this.#options = options;
  }

  /** Write streamed text into the paragraph `key`, starting a new line if another paragraph was open. */
  stream(kind: DeltaKind, key: string, text: string): void {
    this.#options.spinner?.stop();
    if (this.#paragraph !== key) {
      this.endParagraph();
      this.#paragraph = key;
    }
    const output = kind === "text" ? this.#options.text : this.#options.aside;
    if (kind === "text" && this.#options.markdown === true) {
      this.#streamMarkdown(output, key, text);
      return;
    }
    this.#write(output, kind === "text" ? text : output.paint.dim(output.paint.italic(text)), text);
  }

  /** One whole line on the text stream. */
  textLine(text: string): void {
    this.#line(this.#options.text, text);
  }

  /** One whole line on the aside stream. */
  asideLine(text: string): void {
    this.#line(this.#options.aside, text);
  }

  /** End the paragraph under way: render its markdown line, end every line left open. */
  endParagraph(): void {
    this.#paragraph = null;
    const markdown = this.#markdown;
    if (markdown !== null && markdown.partial !== "") {
      this.#renderMarkdownLine(this.#options.text, markdown, markdown.partial);
    }
    for (const [output, open] of this.#openLine) {
      if (open) this.#write(output, "\n");
    }
  }

  #line(output: OutputStream, text: string): void {
    this.#options.spinner?.stop();
    this.endParagraph();
    this.#write(output, `${text}\n`);
  }

  /** Answer text as markdown: whole lines rendered, the unfinished one shown raw until its newline. */
  #streamMarkdown(output: OutputStream, key: string, text: string): void {
    if (this.#markdown?.key !== key) this.#markdown = { key, state: newMarkdownState(), partial: "" };
    const markdown = this.#markdown;
    let rest = text;
    for (let newline = rest.indexOf("\n"); newline !== -1; newline = rest.indexOf("\n")) {
      this.#renderMarkdownLine(output, markdown, markdown.partial + rest.slice(0, newline));
      rest = rest.slice(newline + 1);
    }
    if (rest === "") return;
    this.#write(output, rest);
    markdown.partial += rest;
  }

  /** Replace the raw line on screen (`partial`, possibly wrapped over rows) by `line` rendered. */
  #renderMarkdownLine(
    output: OutputStream,
    markdown: { state: MarkdownState; partial: string },
    line: string,
  ): void {
    const shown = visibleWidth(markdown.partial);
    const up = shown === 0 ? 0 : Math.floor((shown - 1) / Math.max(output.columns, 1));
    const erase = shown === 0 ? "" : `${up > 0 ? `\x1b[${up}A` : ""}\r\x1b[J`;
    markdown.partial = "";
    this.#write(
      output,
      `${erase}${renderMarkdownLine(line, markdown.state, output.paint, output.columns)}\n`,
      `${line}\n`,
    );
  }

  /** Write `text`; `plain` is the same text without escape codes (to know whether a line is left open). */
  #write(output: OutputStream, text: string, plain: string = text): void {
    if (plain === "") return;
    const surround = this.#options.surroundWrites;
    surround?.before();
    output.stream.write(text);
    const lineOpen = !plain.endsWith("\n");
    this.#openLine.set(output, lineOpen);
    surround?.after(lineOpen, plain);
  }
}
