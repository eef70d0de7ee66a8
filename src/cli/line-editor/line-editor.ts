/**
 * The chat's prompt on a terminal: a small multi-line editor drawn below the transcript.
 *
 * Why not readline: Node's readline edits one line, submits a paste at its first newline and
 * cannot stay on screen while output streams above it. Keys are still decoded by readline's
 * `emitKeypressEvents` (which also reports bracketed paste); pieces of keys are put together by
 * key-decoder.ts, key-bindings.ts says what each key does, the edits are edit-buffer.ts's,
 * history and completion have files of their own, and prompt-frame.ts says what is drawn.
 *
 * Keys: Enter sends; Alt-Enter, Shift-Enter (terminals that report it, CSI-u), Ctrl-J and a `\`
 * at the end of the line insert a newline; a bracketed paste is inserted whole; Up/Down move
 * between lines, then through the history; Ctrl-R searches the history; Tab completes;
 * Shift-Tab is reported (the chat cycles its approval mode).
 *
 * Layout: [status row] [note rows] prompt lines [hint rows]. While output is written (`beforeOutput` /
 * `afterOutput`) the editor erases itself, lets the output continue where it stopped (also in
 * the middle of a line), and draws itself again below it, so typing echoes while a turn streams.
 *
 * Boundary rule: terminal input and drawing of the prompt only; what a submitted prompt means
 * is the chat's business (the handler). This class owns the terminal while mounted and the
 * editor's state between keys; everything it decides is in the pure functions it calls.
 */

import type { Paint } from "../render/terminal.js";
import { type CompletionSource, complete } from "./completion.js";
import { bufferOf, deleteBack, deleteForward, type EditBuffer, emptyBuffer, insert } from "./edit-buffer.js";
import { atDraft, type HistoryPlace, recallNewer, recallOlder } from "./history-navigation.js";
import { type Search, searchKey, searchLine, startSearch } from "./history-search.js";
import { commandFor, type EditorCommand } from "./key-bindings.js";
import { KeyDecoder } from "./key-decoder.js";
import type { Key } from "./keypress.js";
import { afterWriting, atLineStart, type OutputEnd, resumeOutput, waitsToWrap } from "./output-end.js";
import { drawFrame, eraseArea } from "./prompt-frame.js";
import type { PromptHistory } from "./prompt-history.js";
import { applyCompletion } from "./tab-completion.js";

/** What the person did at the prompt. */
type EditorEvent =
  | { kind: "submit"; text: string }
  | { kind: "eof" }
  | { kind: "interrupt" }
  /** Shift-Tab: the prompt stays, with what is typed. */
  | { kind: "cycle-mode" };

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
  #history: HistoryPlace = atDraft;
  #search: Search | null = null;
  readonly #decoder = new KeyDecoder();
  #outputEnd: OutputEnd = atLineStart;
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
    this.#decoder.stopPaste();
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
    const resume = resumeOutput(this.#outputEnd, this.#columns());
    if (resume !== null) this.options.output.write(resume);
  }

  /** Output was written (`plain`: without escape codes): draw the prompt again below it. */
  afterOutput(lineOpen: boolean, plain: string): void {
    this.#outputEnd = afterWriting(this.#outputEnd, lineOpen, plain);
    if (this.#mount !== null && this.#cursorRow === null) this.#scheduleDraw();
  }

  /** Show `prompt` (of `promptWidth` columns) before the first line from now on. */
  setPrompt(prompt: string, promptWidth: number): void {
    if (this.#mount === null || this.#mount.prompt === prompt) return;
    this.#mount = { ...this.#mount, prompt, promptWidth };
    this.#draw();
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
    const decoded = this.#decoder.decode(text, key);
    if (decoded.kind === "pending") return;
    if (decoded.kind === "insert") {
      this.#buffer = insert(this.#buffer, decoded.text);
      this.#scheduleDraw();
      return;
    }
    this.#hints = [];
    if (this.#search !== null) {
      const step = searchKey(this.#search, this.#buffer, text, key, this.options.history.entries);
      this.#search = step.search;
      this.#buffer = step.buffer;
      if (step.handled) {
        this.#scheduleDraw();
        return;
      }
    }
    const command = commandFor(text, key);
    if (command !== null && this.#run(command, mount) === "handled") this.#scheduleDraw();
  }

  /** Carry out a key's command; "handled" when the prompt is to be drawn again. */
  #run(command: EditorCommand, mount: MountOptions): "handled" | "done" {
    const buffer = this.#buffer;
    switch (command.kind) {
      case "edit":
        this.#buffer = command.edit(buffer);
        return "handled";
      case "interrupt":
        if (mount.ctrlCClears && buffer.text !== "") {
          this.#buffer = emptyBuffer;
          this.#history = { ...this.#history, index: null };
          return "handled";
        }
        mount.onEvent({ kind: "interrupt" });
        return "done";
      case "eof":
        if (buffer.text === "") {
          mount.onEvent({ kind: "eof" });
          return "done";
        }
        this.#buffer = deleteForward(buffer);
        return "handled";
      case "clear-screen":
        this.options.output.write("\x1b[2J\x1b[H");
        this.#cursorRow = null;
        this.#outputEnd = atLineStart;
        return "handled";
      case "search":
        this.#search = startSearch(buffer);
        return "handled";
      case "line": {
        const recall = command.direction === -1 ? recallOlder : recallNewer;
        const recalled = recall({ buffer, place: this.#history }, this.options.history.entries);
        this.#buffer = recalled.buffer;
        this.#history = recalled.place;
        return "handled";
      }
      case "complete":
        this.#complete();
        return "handled";
      case "cycle-mode":
        mount.onEvent({ kind: "cycle-mode" });
        return "handled";
      case "enter":
        return this.#enter(mount);
      case "redraw":
        return "handled";
    }
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
    this.#history = atDraft;
    if (mount.keepSubmitted) {
      // The prompt stays on screen as sent; the next one is drawn below it.
      this.#buffer = bufferOf(text);
      this.#draw();
      this.options.output.write("\r\n");
      this.#cursorRow = null;
      this.#outputEnd = atLineStart;
      this.#buffer = emptyBuffer;
    } else {
      this.#buffer = emptyBuffer;
      this.#draw();
    }
    mount.onEvent({ kind: "submit", text });
    return "done";
  }

  #complete(): void {
    const completion = complete(this.#buffer, this.options.completion);
    if (completion === null) return;
    const completed = applyCompletion(this.#buffer, completion, this.#columns());
    this.#buffer = completed.buffer;
    this.#hints = completed.hints;
  }

  /** Erase the drawn area; the cursor ends at its top-left. */
  #erase(): void {
    if (this.#cursorRow === null) return;
    this.options.output.write(eraseArea(this.#cursorRow));
    this.#cursorRow = null;
  }

  /** Draw status, prompt and hints, and put the cursor where the text cursor is. */
  #draw(): void {
    const mount = this.#mount;
    if (mount === null) return;
    const columns = this.#columns();
    if (this.#cursorRow === null && waitsToWrap(this.#outputEnd, columns)) return;
    const header = this.#status === null ? this.#notes : [this.#status, ...this.#notes];
    const footer = this.#search === null ? this.#hints : [searchLine(this.#search), ...this.#hints];
    const { bytes, cursorRow } = drawFrame(
      { prompt: mount.prompt, promptWidth: mount.promptWidth, header, buffer: this.#buffer, footer },
      {
        columns,
        rows: this.options.output.rows ?? 24,
        paint: this.options.paint,
        cursorRow: this.#cursorRow,
        outputOpen: this.#outputEnd.open,
      },
    );
    this.options.output.write(bytes);
    this.#cursorRow = cursorRow;
  }
}
