/**
 * Reading prompts for `skein chat`.
 *
 * Boundary rule: terminal input only. On a terminal the line editor (line-editor/) reads each
 * prompt, and stays on screen while a turn runs: Ctrl-C reaches us as a key (to interrupt the
 * turn), and what is typed meanwhile is edited below the streamed answer and, on Enter, handed
 * to the chat as a prompt typed ahead. When stdin is not a terminal, one readline reads all
 * lines and queues them, so piped prompts are answered one after another.
 */
import { createInterface, emitKeypressEvents, type Interface } from "node:readline";
import type { CompletionSource } from "./line-editor/completion.js";
import { LineEditor } from "./line-editor/line-editor.js";
import { PromptHistory } from "./line-editor/prompt-history.js";
import type { Paint } from "./render/terminal.js";
import { visibleWidth } from "./render/text-shape.js";

export type PromptResult = { kind: "line"; text: string } | { kind: "eof" } | { kind: "interrupt" };

export interface PromptReaderOptions {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** True when both ends are a terminal. */
  interactive: boolean;
  /** Where prompts are remembered between runs (null: this run only). */
  historyFile: string | null;
  completion: CompletionSource;
  paint: Paint;
}

/** Reads chat prompts from a terminal or a pipe. */
export class PromptReader {
  readonly interactive: boolean;
  readonly #input: NodeJS.ReadStream;
  readonly #editor: LineEditor | null;
  #piped: Interface | null = null;
  readonly #queue: string[] = [];
  #ended = false;
  #wake: (() => void) | null = null;
  /** What the terminal input is doing: read by a prompt, captured by a turn, or neither. */
  #mode: "idle" | "reading" | "capturing" = "idle";
  #pendingCtrlC = false;
  /** What Shift-Tab does (the chat cycles its approval mode); nothing until set. */
  #onShiftTab: () => void = () => {};

  constructor(options: PromptReaderOptions) {
    this.interactive = options.interactive;
    this.#input = options.input;
    if (!options.interactive) {
      this.#editor = null;
      return;
    }
    this.#editor = new LineEditor({
      input: options.input,
      output: options.output,
      history: PromptHistory.load(options.historyFile),
      completion: options.completion,
      paint: options.paint,
    });
    // Whatever way the process ends, the terminal gets its modes back (no raw mode, no pastes
    // wrapped in markers for the shell that comes next).
    process.once("exit", () => {
      options.output.write("\x1b[?2004l");
      if (options.input.isTTY === true) options.input.setRawMode(false);
    });
    // Keys typed together with Enter ("\r\x03") arrive after the prompt was sent and before a
    // turn captures the keyboard; without this, such a Ctrl-C would be lost.
    emitKeypressEvents(options.input);
    options.input.on(
      "keypress",
      (_text: string | undefined, key: { ctrl?: boolean; name?: string } | undefined) => {
        if (this.#mode === "idle" && key?.ctrl === true && key.name === "c") this.#pendingCtrlC = true;
      },
    );
  }

  /** Output is about to be written: the prompt steps aside (erased), wherever it is. */
  beforeOutput(): void {
    this.#editor?.beforeOutput();
  }

  /** Output was written (`plain`: its text without escape codes); the prompt comes back below it. */
  afterOutput(lineOpen: boolean, plain: string): void {
    this.#editor?.afterOutput(lineOpen, plain);
  }

  /** The dim line above the prompt while a turn runs (null: none). */
  setStatus(status: string | null): void {
    this.#editor?.setStatus(status);
  }

  /** Dim lines above the prompt (prompts queued behind the running turn). */
  setNotes(notes: readonly string[]): void {
    this.#editor?.setNotes(notes);
  }

  /** Run `handler` on every Shift-Tab, at a prompt and while a turn runs. */
  onShiftTab(handler: () => void): void {
    this.#onShiftTab = handler;
  }

  /** The prompt shown from now on, if one is on screen (the next `read` gives its own). */
  setPrompt(prompt: string): void {
    this.#editor?.setPrompt(prompt, visibleWidth(prompt));
  }

  /** Whether the prompt is on screen (so a status line has somewhere to go). */
  get showsStatus(): boolean {
    return this.#editor?.mounted === true;
  }

  /** Whether a Ctrl-C arrived between the last prompt and now (and forget it). */
  takePendingCtrlC(): boolean {
    const pending = this.#pendingCtrlC;
    this.#pendingCtrlC = false;
    return pending;
  }

  /** The next prompt (eof on Ctrl-D or end of input; interrupt on Ctrl-C at an empty prompt). */
  read(prompt: string): Promise<PromptResult> {
    const editor = this.#editor;
    if (editor === null) return this.#readPiped();
    this.#pendingCtrlC = false;
    this.#mode = "reading";
    return new Promise((resolve) => {
      editor.mount({
        prompt,
        promptWidth: visibleWidth(prompt),
        keepSubmitted: true,
        ctrlCClears: true,
        onEvent: (event) => {
          if (event.kind === "cycle-mode") {
            this.#onShiftTab();
            return;
          }
          this.#mode = "idle";
          editor.unmount();
          if (event.kind === "submit") resolve({ kind: "line", text: event.text });
          else if (event.kind === "interrupt") {
            this.#newline();
            resolve({ kind: "interrupt" });
          } else resolve({ kind: "eof" });
        },
      });
    });
  }

  /**
   * While a turn runs: the prompt stays below the output; `onCtrlC` for every Ctrl-C, and
   * `onSubmit` for a prompt typed ahead and sent with Enter, `onEof` for Ctrl-D on an empty
   * prompt. Returns the function that gives
   * the terminal back (what is being typed stays for the next prompt).
   */
  captureKeys(
    onCtrlC: () => void,
    onSubmit: (text: string) => void,
    prompt: string,
    onEof: () => void = () => {},
  ): () => void {
    const editor = this.#editor;
    if (editor === null) return () => {};
    this.#mode = "capturing";
    editor.mount({
      prompt,
      promptWidth: visibleWidth(prompt),
      keepSubmitted: false,
      ctrlCClears: false,
      onEvent: (event) => {
        if (event.kind === "interrupt") onCtrlC();
        else if (event.kind === "submit") onSubmit(event.text);
        else if (event.kind === "cycle-mode") this.#onShiftTab();
        else onEof();
      },
    });
    return () => {
      this.#mode = "idle";
      editor.setStatus(null);
      editor.unmount();
    };
  }

  /** Stop reading. */
  close(): void {
    this.#editor?.unmount();
    if (this.#editor !== null) this.#input.setRawMode(false);
    this.#piped?.close();
    if (this.interactive) this.#input.pause();
  }

  #newline(): void {
    this.#editor?.afterOutput(false, "\n");
    process.stdout.write("\n");
  }

  #readPiped(): Promise<PromptResult> {
    if (this.#piped === null) {
      const rl = createInterface({ input: this.#input, terminal: false });
      rl.on("line", (line) => {
        this.#queue.push(line);
        this.#wake?.();
      });
      rl.on("close", () => {
        this.#ended = true;
        this.#wake?.();
      });
      this.#piped = rl;
    }
    return new Promise((resolve) => {
      const take = (): void => {
        const line = this.#queue.shift();
        if (line !== undefined) {
          this.#wake = null;
          resolve({ kind: "line", text: line });
        } else if (this.#ended) {
          this.#wake = null;
          resolve({ kind: "eof" });
        } else {
          this.#wake = take;
        }
      };
      take();
    });
  }
}
