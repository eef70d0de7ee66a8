/**
 * The chat's prompt on a terminal: a small multi-line editor drawn below the transcript.
 *
 * Why not readline: Node's readline edits one line, submits a paste at its first newline and
 * cannot stay on screen while output streams above it. Keys are still decoded by readline's
 * `emitKeypressEvents` (which also reports bracketed paste); editing, history, search and
 * completion are here, drawing is one function (`#draw`).
 *
 * Keys: Enter sends; Alt-Enter, Shift-Enter (terminals that report it, CSI-u), Ctrl-J and a `\`
 * at the end of the line insert a newline; a bracketed paste is inserted whole; Up/Down move
 * between lines, then through the history; Ctrl-R searches the history; Tab completes.
 *
 * Layout: [status row] [note rows] prompt lines [hint rows]. While output is written (`beforeOutput` /
 * `afterOutput`) the editor erases itself, lets the output continue where it stopped (also in
 * the middle of a line), and draws itself again below it, so typing echoes while a turn streams.
 *
 * Boundary rule: terminal input and drawing of the prompt only; what a submitted prompt means
 * is the chat's business (the handler).
 */

import type { Paint } from "../render/terminal.js";
import { cutToWidth, displayWidth } from "../text-width.js";
import { type CompletionSource, commonPrefix, complete } from "./completion.js";
import {
  bufferOf,
  deleteBack,
  deleteForward,
  deleteWordBack,
  type EditBuffer,
  emptyBuffer,
  insert,
  killToLineEnd,
  killToLineStart,
  moveChar,
  moveLine,
  moveLineEdge,
  moveWord,
  replaceBeforeCursor,
} from "./edit-buffer.js";
import type { PromptHistory } from "./prompt-history.js";

/** What the person did at the prompt. */
export type EditorEvent = { kind: "submit"; text: string } | { kind: "eof" } | { kind: "interrupt" };

/** How the editor behaves while mounted. */
export interface MountOptions {
  /** Shown before the first line (with its escape codes); `promptWidth` is its width in columns. */
  prompt: string;
  promptWidth: number;
  /** Leave a sent prompt on screen (at an idle prompt) or clear it (typing ahead during a turn). */
  keepSubmitted: boolean;
  /** Ctrl-C on a non-empty prompt clears it (idle) rather than being reported (during a turn). */
  ctrlCClears: boolean;
  onEvent(event: EditorEvent): void;
}

export interface LineEditorOptions {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  history: PromptHistory;
  completion: CompletionSource;
  paint: Paint;
}

interface Key {
  sequence?: string;
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  code?: string;
}

interface Search {
  query: string;
  /** Index in the history of the match shown, or null when nothing matches. */
  index: number | null;
  /** The buffer before the search (restored on Esc). */
  before: EditBuffer;
}

const continuation = "  ";
const maxHintRows = 4;

/** A multi-line prompt editor on a raw terminal. */
export class LineEditor {
  #buffer: EditBuffer = emptyBuffer;
  #mount: MountOptions | null = null;
  /** Rows from the top of the drawn area to the cursor; null when nothing is drawn. */
  #cursorRow: number | null = null;
  #status: string | null = null;
  /** Dim lines between the status line and the prompt (prompts queued for later). */
  #notes: readonly string[] = [];
  #hints: string[] = [];
  #historyIndex: number | null = null;
  #draft: EditBuffer = emptyBuffer;
  #search: Search | null = null;
  #pasting = false;
  /** What a bracketed paste has brought so far. */
  #pasted: string[] = [];
  #pastedReturn = false;
  /** Digits of an xterm modifyOtherKeys sequence (`ESC [27;2;13~`, Shift-Enter) being read. */
  #modified: string | null = null;
  /** Whether the output above ended mid-line, and at which column (its width so far). */
  #outputOpen = false;
  #outputColumn = 0;
  #drawScheduled = false;
  readonly #onKey = (text: string | undefined, key: Key | undefined): void => this.#key(text, key ?? {});
  readonly #onResize = (): void => this.#scheduleDraw();

  constructor(private readonly options: LineEditorOptions) {}

  /** The text being edited. */
  get text(): string {
    return this.#buffer.text;
  }

  /** Whether the editor is on screen and reading keys. */
  get mounted(): boolean {
    return this.#mount !== null;
  }

  /** Take the keyboard and draw the prompt (the text typed so far is kept). */
  mount(options: MountOptions): void {
    if (this.#mount !== null) this.unmount();
    this.#mount = options;
    const { input, output } = this.options;
    input.setRawMode(true);
    input.on("keypress", this.#onKey);
    input.resume();
    output.on("resize", this.#onResize);
    output.write("\x1b[?2004h");
    this.#draw();
  }

  /** Erase the prompt and stop reading keys (the typed text stays for the next mount). */
  unmount(): void {
    if (this.#mount === null) return;
    this.#erase();
    this.#mount = null;
    this.#search = null;
    this.#hints = [];
    this.#pasting = false;
    const { input, output } = this.options;
    output.write("\x1b[?2004l");
    output.off("resize", this.#onResize);
    input.off("keypress", this.#onKey);
    // Raw mode stays on (the owner turns it off when done): keys typed before the next mount
    // wait in the input, Ctrl-C and Ctrl-D included, instead of becoming a signal or an EOF.
    input.pause();
  }

  /** The dim line above the prompt (progress of a turn), or null for none. */
  setStatus(status: string | null): void {
    if (status === this.#status) return;
    this.#status = status;
    if (this.#mount !== null) this.#draw();
  }

  /** The dim lines above the prompt (e.g. prompts queued behind the running turn). */
  setNotes(notes: readonly string[]): void {
    this.#notes = notes;
    if (this.#mount !== null) this.#draw();
  }

  /** Output is about to be written: erase the prompt and put the cursor where the output stopped. */
  beforeOutput(): void {
    if (this.#cursorRow === null) return;
    this.#erase();
    if (!this.#outputOpen) return;
    const column = this.#outputColumn % this.#columns();
    this.options.output.write(`\x1b[1A\r${column > 0 ? `\x1b[${column}C` : ""}`);
  }

  /** Output was written (`plain`: without escape codes): draw the prompt again below it. */
  afterOutput(lineOpen: boolean, plain: string): void {
    const newline = plain.lastIndexOf("\n");
    this.#outputColumn =
      newline === -1 ? this.#outputColumn + displayWidth(plain) : displayWidth(plain.slice(newline + 1));
    this.#outputOpen = lineOpen;
    if (!lineOpen) this.#outputColumn = 0;
    if (this.#mount !== null && this.#cursorRow === null) this.#scheduleDraw();
  }

  /** Replace the text being edited. */
  setText(text: string): void {
    this.#buffer = bufferOf(text);
    if (this.#mount !== null) this.#draw();
  }

  #columns(): number {
    return Math.max(this.options.output.columns ?? 80, 10);
  }

  #scheduleDraw(): void {
    if (this.#drawScheduled) return;
    this.#drawScheduled = true;
    setImmediate(() => {
      this.#drawScheduled = false;
      if (this.#mount !== null) this.#draw();
    });
  }

  #key(text: string | undefined, key: Key): void {
    const mount = this.#mount;
    if (mount === null) return;
    if (key.name === "paste-start") {
      this.#pasting = true;
      this.#pasted = [];
      return;
    }
    if (key.name === "paste-end") {
      this.#pasting = false;
      // Inserted at once: a large paste arrives one key at a time.
      this.#buffer = insert(this.#buffer, this.#pasted.join(""));
      this.#pasted = [];
      this.#scheduleDraw();
      return;
    }
    if (this.#pasting) {
      this.#pastedKey(text, key);
      return;
    }
    if (this.#modifiedKey(text, key)) return;
    this.#hints = [];
    if (this.#search !== null && this.#searchKey(text, key)) {
      this.#scheduleDraw();
      return;
    }
    if (this.#edit(text, key, mount) === "handled") this.#scheduleDraw();
  }

  /**
   * xterm's modifyOtherKeys reports Shift-Enter as `ESC [27;2;13~`, which readline splits into
   * `ESC [27;2;` and the characters `1`, `3`, `~`: collect them rather than insert them.
   */
  #modifiedKey(text: string | undefined, key: Key): boolean {
    if (key.code !== undefined && /^\[27;\d+;$/.test(key.code)) {
      this.#modified = "";
      return true;
    }
    if (this.#modified === null) return false;
    if (text !== undefined && /^\d$/.test(text)) {
      this.#modified += text;
      return true;
    }
    const code = this.#modified;
    this.#modified = null;
    if (text === "~" && code === "13") {
      this.#buffer = insert(this.#buffer, "\n");
      this.#scheduleDraw();
      return true;
    }
    return text === "~";
  }

  /** A key inside a bracketed paste: everything is text, newlines included. */
  #pastedKey(text: string | undefined, key: Key): void {
    // "\r\n" (text copied from Windows) is one line break, not two.
    const afterReturn = this.#pastedReturn;
    this.#pastedReturn = key.name === "return";
    if (key.name === "return") this.#pasted.push("\n");
    else if (key.name === "enter") {
      if (!afterReturn) this.#pasted.push("\n");
    } else if (key.name === "tab") this.#pasted.push("\t");
    else if (text !== undefined && isPrintable(text)) this.#pasted.push(text);
  }

  #edit(text: string | undefined, key: Key, mount: MountOptions): "handled" | "done" {
    const buffer = this.#buffer;
    if (key.ctrl === true && !key.meta) {
      switch (key.name) {
        case "c":
          if (mount.ctrlCClears && buffer.text !== "") {
            this.#buffer = emptyBuffer;
            this.#historyIndex = null;
            return "handled";
          }
          mount.onEvent({ kind: "interrupt" });
          return "done";
        case "d":
          if (buffer.text === "") {
            mount.onEvent({ kind: "eof" });
            return "done";
          }
          this.#buffer = deleteForward(buffer);
          return "handled";
        case "a":
          this.#buffer = moveLineEdge(buffer, "start");
          return "handled";
        case "e":
          this.#buffer = moveLineEdge(buffer, "end");
          return "handled";
        case "b":
          this.#buffer = moveChar(buffer, -1);
          return "handled";
        case "f":
          this.#buffer = moveChar(buffer, 1);
          return "handled";
        case "u":
          this.#buffer = killToLineStart(buffer);
          return "handled";
        case "k":
          this.#buffer = killToLineEnd(buffer);
          return "handled";
        case "w":
        case "backspace":
          this.#buffer = deleteWordBack(buffer);
          return "handled";
        case "h":
          this.#buffer = deleteBack(buffer);
          return "handled";
        case "left":
          this.#buffer = moveWord(buffer, -1);
          return "handled";
        case "right":
          this.#buffer = moveWord(buffer, 1);
          return "handled";
        case "l":
          this.options.output.write("\x1b[2J\x1b[H");
          this.#cursorRow = null;
          this.#outputOpen = false;
          this.#outputColumn = 0;
          return "handled";
        case "r":
          this.#search = { query: "", index: null, before: buffer };
          return "handled";
        case "p":
          this.#up();
          return "handled";
        case "n":
          this.#down();
          return "handled";
        default:
          return "done";
      }
    }
    switch (key.name) {
      case "return":
        if (key.meta === true) {
          this.#buffer = insert(buffer, "\n");
          return "handled";
        }
        return this.#enter(mount);
      case "enter":
        // Ctrl-J.
        this.#buffer = insert(buffer, "\n");
        return "handled";
      case "backspace":
        this.#buffer = key.meta === true ? deleteWordBack(buffer) : deleteBack(buffer);
        return "handled";
      case "delete":
        this.#buffer = deleteForward(buffer);
        return "handled";
      case "left":
        this.#buffer = key.meta === true ? moveWord(buffer, -1) : moveChar(buffer, -1);
        return "handled";
      case "right":
        this.#buffer = key.meta === true ? moveWord(buffer, 1) : moveChar(buffer, 1);
        return "handled";
      case "home":
        this.#buffer = moveLineEdge(buffer, "start");
        return "handled";
      case "end":
        this.#buffer = moveLineEdge(buffer, "end");
        return "handled";
      case "up":
        this.#up();
        return "handled";
      case "down":
        this.#down();
        return "handled";
      case "tab":
        this.#complete();
        return "handled";
      case "escape":
        return "handled";
      case "b":
      case "f":
        if (key.meta === true) {
          this.#buffer = moveWord(buffer, key.name === "b" ? -1 : 1);
          return "handled";
        }
        break;
      default:
        break;
    }
    // Shift-Enter as terminals with the CSI-u protocol report it.
    if (key.code === "[13;2u") {
      this.#buffer = insert(buffer, "\n");
      return "handled";
    }
    if (text !== undefined && key.meta !== true && isPrintable(text)) {
      this.#buffer = insert(buffer, text);
      return "handled";
    }
    return "done";
  }

  /** Enter: a `\` before the cursor at the end of a line asks for a newline; otherwise send. */
  #enter(mount: MountOptions): "handled" | "done" {
    const { text, cursor } = this.#buffer;
    const atLineEnd = cursor === text.length || text[cursor] === "\n";
    if (atLineEnd && cursor > 0 && text[cursor - 1] === "\\") {
      this.#buffer = insert(deleteBack(this.#buffer), "\n");
      return "handled";
    }
    this.options.history.add(text);
    this.#historyIndex = null;
    this.#draft = emptyBuffer;
    if (mount.keepSubmitted) {
      // The prompt stays on screen as sent; the next one is drawn below it.
      this.#buffer = bufferOf(text);
      this.#draw();
      this.options.output.write("\r\n");
      this.#cursorRow = null;
      this.#outputOpen = false;
      this.#outputColumn = 0;
      this.#buffer = emptyBuffer;
    } else {
      this.#buffer = emptyBuffer;
      this.#draw();
    }
    mount.onEvent({ kind: "submit", text });
    return "done";
  }

  #up(): void {
    const moved = moveLine(this.#buffer, -1);
    if (moved !== null) {
      this.#buffer = moved;
      return;
    }
    const entries = this.options.history.entries;
    if (entries.length === 0) return;
    if (this.#historyIndex === null) {
      this.#draft = this.#buffer;
      this.#historyIndex = entries.length - 1;
    } else if (this.#historyIndex > 0) {
      this.#historyIndex -= 1;
    } else {
      return;
    }
    this.#buffer = bufferOf(entries[this.#historyIndex]!);
  }

  #down(): void {
    const moved = moveLine(this.#buffer, 1);
    if (moved !== null) {
      this.#buffer = moved;
      return;
    }
    if (this.#historyIndex === null) return;
    const entries = this.options.history.entries;
    if (this.#historyIndex < entries.length - 1) {
      this.#historyIndex += 1;
      this.#buffer = bufferOf(entries[this.#historyIndex]!);
      return;
    }
    this.#historyIndex = null;
    this.#buffer = this.#draft;
  }

  /** A key during Ctrl-R search; false when it ends the search and should be handled as usual. */
  #searchKey(text: string | undefined, key: Key): boolean {
    const search = this.#search!;
    if (key.ctrl === true && key.name === "r") {
      this.#find(search, search.index === null ? null : search.index - 1);
      return true;
    }
    if ((key.ctrl === true && key.name === "g") || key.name === "escape") {
      this.#buffer = search.before;
      this.#search = null;
      return true;
    }
    if (key.name === "backspace") {
      search.query = search.query.slice(0, -1);
      this.#find(search, null);
      return true;
    }
    if (key.name === "return") {
      // Enter takes the match into the prompt to be edited or sent.
      this.#search = null;
      return true;
    }
    if (text !== undefined && key.ctrl !== true && key.meta !== true && isPrintable(text)) {
      search.query += text;
      this.#find(search, null);
      return true;
    }
    this.#search = null;
    return false;
  }

  /** Show the newest entry at or before `from` (null: the newest) that contains the query. */
  #find(search: Search, from: number | null): void {
    const entries = this.options.history.entries;
    for (let i = from ?? entries.length - 1; i >= 0; i--) {
      if (entries[i]!.includes(search.query)) {
        search.index = i;
        this.#buffer = bufferOf(entries[i]!);
        return;
      }
    }
    if (from === null) search.index = null;
  }

  #complete(): void {
    const completion = complete(this.#buffer, this.options.completion);
    if (completion === null) return;
    const { start, candidates } = completion;
    const word = this.#buffer.text.slice(start, this.#buffer.cursor);
    if (candidates.length === 1) {
      const only = candidates[0]!;
      this.#buffer = replaceBeforeCursor(this.#buffer, start, only.endsWith("/") ? only : `${only} `);
      return;
    }
    const prefix = commonPrefix(candidates);
    if (prefix.length > word.length) this.#buffer = replaceBeforeCursor(this.#buffer, start, prefix);
    this.#hints = candidateRows(candidates, this.#columns());
  }

  /** Erase the drawn area; the cursor ends at its top-left. */
  #erase(): void {
    if (this.#cursorRow === null) return;
    const up = this.#cursorRow > 0 ? `\x1b[${this.#cursorRow}A` : "";
    this.options.output.write(`${up}\r\x1b[J`);
    this.#cursorRow = null;
  }

  /** Draw status, prompt and hints, and put the cursor where the text cursor is. */
  #draw(): void {
    const mount = this.#mount;
    if (mount === null) return;
    // Output that just filled its row waits to wrap onto the next one: a newline there would cut
    // the line in two (for copying, and for terminals that re-wrap on resize). The prompt comes
    // back with the next output.
    if (this.#cursorRow === null && this.#outputOpen && this.#outputColumn % this.#columns() === 0) return;
    const paint = this.options.paint;
    const columns = this.#columns();
    let out = "\x1b[?25l";
    if (this.#cursorRow !== null) {
      out += `${this.#cursorRow > 0 ? `\x1b[${this.#cursorRow}A` : ""}\r\x1b[J`;
    } else if (this.#outputOpen) {
      out += "\r\n";
    }
    const rows: { text: string; width: number }[] = [];
    if (this.#status !== null) rows.push(fitted(this.#status, columns, paint.dim));
    for (const note of this.#notes) rows.push(fitted(note, columns, paint.dim));
    const lines = this.#buffer.text.split("\n");
    const before = this.#buffer.text.slice(0, this.#buffer.cursor);
    const cursorLine = before.split("\n").length - 1;
    const textRows = lines.map((line, index) => {
      const prefix = index === 0 ? mount.prompt : paint.dim(continuation);
      const prefixWidth = index === 0 ? mount.promptWidth : continuation.length;
      const shown = line.replaceAll("\t", " ");
      return { text: prefix + shown, width: prefixWidth + displayWidth(shown) };
    });
    // A prompt taller than the screen shows the lines around the cursor, and how many are not shown.
    const budget = Math.max(3, (this.options.output.rows ?? 24) - rows.length - 4);
    const height = (index: number): number => Math.floor(textRows[index]!.width / columns) + 1;
    let first = cursorLine;
    let last = cursorLine;
    let used = height(cursorLine);
    for (let grew = true; grew; ) {
      grew = false;
      if (last + 1 < textRows.length && used + height(last + 1) <= budget) {
        last += 1;
        used += height(last);
        grew = true;
      }
      if (first > 0 && used + height(first - 1) <= budget) {
        first -= 1;
        used += height(first);
        grew = true;
      }
    }
    if (first > 0) rows.push(fitted(`  … ${first} line${first === 1 ? "" : "s"} above`, columns, paint.dim));
    const firstTextRow = rows.length - first;
    rows.push(...textRows.slice(first, last + 1));
    const below = textRows.length - 1 - last;
    if (below > 0) rows.push(fitted(`  … ${below} line${below === 1 ? "" : "s"} below`, columns, paint.dim));
    if (this.#search !== null) {
      const found = this.#search.index === null && this.#search.query !== "" ? " (no match)" : "";
      rows.push(
        fitted(
          `history search: ${this.#search.query}${found}  (Ctrl-R older, Esc cancels)`,
          columns,
          paint.dim,
        ),
      );
    }
    for (const hint of this.#hints) rows.push(fitted(hint, columns, paint.dim));
    // Where the text cursor is: its line, and its column counted from the prompt.
    const cursorOffset =
      (cursorLine === 0 ? mount.promptWidth : continuation.length) +
      displayWidth(before.slice(before.lastIndexOf("\n") + 1).replaceAll("\t", " "));
    let row = 0;
    let cursorRow = 0;
    let cursorColumn = 0;
    rows.forEach((entry, index) => {
      if (index > 0) out += "\r\n";
      out += entry.text;
      // A row filled to the last column: move onto the next row so the count below holds.
      if (entry.width > 0 && entry.width % columns === 0) out += " \x1b[D\x1b[K";
      if (index === firstTextRow + cursorLine) {
        cursorRow = row + Math.floor(cursorOffset / columns);
        cursorColumn = cursorOffset % columns;
      }
      row += Math.floor(entry.width / columns) + 1;
    });
    const lastRow = row - 1;
    if (lastRow > cursorRow) out += `\x1b[${lastRow - cursorRow}A`;
    out += `\r${cursorColumn > 0 ? `\x1b[${cursorColumn}C` : ""}\x1b[?25h`;
    this.options.output.write(out);
    this.#cursorRow = cursorRow;
  }
}

/** Candidates laid out in rows of the terminal's width (at most a few rows, then "…"). */
function candidateRows(candidates: readonly string[], columns: number): string[] {
  const rows: string[] = [];
  let current = "";
  for (const candidate of candidates) {
    const next = current === "" ? candidate : `${current}  ${candidate}`;
    if (next.length > columns - 1 && current !== "") {
      rows.push(current);
      if (rows.length === maxHintRows) {
        rows[maxHintRows - 1] = `${rows[maxHintRows - 1]} …`;
        return rows;
      }
      current = candidate;
    } else {
      current = next;
    }
  }
  if (current !== "") rows.push(current);
  return rows;
}

function fitted(
  text: string,
  columns: number,
  style: (text: string) => string,
): { text: string; width: number } {
  const cut = displayWidth(text) > columns - 1 ? `${cutToWidth(text, columns - 2)}…` : text;
  return { text: style(cut), width: displayWidth(cut) };
}

function isPrintable(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is excluded
  return text !== "" && !/[\x00-\x08\x0b-\x1f\x7f]/.test(text);
}
