/**
 * Reading prompts for `skein chat`.
 *
 * Boundary rule: terminal input only. On a terminal each prompt gets a fresh readline (with
 * shared history) that is closed once the line is in, so that while a turn runs the terminal
 * can be put in raw mode and read key by key: Ctrl-C must reach us as a key (to interrupt the
 * turn), and typing must not echo into the streamed answer. When stdin is not a terminal, one
 * readline reads all lines and queues them, so piped prompts are answered one after another.
 */
import { createInterface, emitKeypressEvents, type Interface } from "node:readline";

export type PromptResult = { kind: "line"; text: string } | { kind: "eof" } | { kind: "interrupt" };

/** Reads chat prompts from a terminal or a pipe. */
export class PromptReader {
  #history: string[] = [];
  #piped: Interface | null = null;
  readonly #queue: string[] = [];
  #ended = false;
  #wake: (() => void) | null = null;
  /** What the terminal input is doing: read by a prompt, captured by a turn, or neither. */
  #mode: "idle" | "reading" | "capturing" = "idle";
  #pendingCtrlC = false;
  /** The prompt's readline while one is shown, and whether output has pushed it aside. */
  #prompting: Interface | null = null;
  #promptHidden = false;

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly output: NodeJS.WriteStream,
    /** True when both ends are a terminal. */
    readonly interactive: boolean,
  ) {
    if (!interactive) return;
    // Keys typed together with Enter ("\r\x03") arrive after the prompt's readline closed and
    // before a turn captures the keyboard; without this, such a Ctrl-C would be lost.
    emitKeypressEvents(input);
    input.on("keypress", (_text: string | undefined, key: { ctrl?: boolean; name?: string } | undefined) => {
      if (this.#mode === "idle" && key?.ctrl === true && key.name === "c") this.#pendingCtrlC = true;
    });
  }

  /**
   * Output is about to be written (e.g. another client's turn streaming in while we wait for a
   * prompt): clear the prompt line first, so the output does not land in the middle of it.
   */
  beforeOutput(): void {
    if (this.#prompting === null || this.#promptHidden) return;
    this.output.write("\r\x1b[2K");
    this.#promptHidden = true;
  }

  /** Output was written; once it has ended its line, show the prompt again with what was typed. */
  afterOutput(lineOpen: boolean): void {
    if (this.#prompting === null || !this.#promptHidden || lineOpen) return;
    this.#promptHidden = false;
    this.#prompting.prompt(true);
  }

  /** Whether a Ctrl-C arrived between the last prompt and now (and forget it). */
  takePendingCtrlC(): boolean {
    const pending = this.#pendingCtrlC;
    this.#pendingCtrlC = false;
    return pending;
  }

  /** The next line (eof on Ctrl-D or end of input; interrupt on Ctrl-C at an empty prompt). */
  read(prompt: string): Promise<PromptResult> {
    return this.interactive ? this.#readTerminal(prompt) : this.#readPiped();
  }

  /**
   * While a turn runs: raw mode, and `onCtrlC` for every Ctrl-C. Other keys are dropped.
   * Returns the function that gives the terminal back.
   */
  captureKeys(onCtrlC: () => void): () => void {
    if (!this.interactive) return () => {};
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      for (const byte of bytes) if (byte === 0x03) onCtrlC();
    };
    this.#mode = "capturing";
    this.input.setRawMode(true);
    this.input.on("data", onData);
    this.input.resume();
    return () => {
      this.#mode = "idle";
      this.input.off("data", onData);
      this.input.setRawMode(false);
      this.input.pause();
    };
  }

  /** Stop reading. */
  close(): void {
    this.#piped?.close();
    if (this.interactive) this.input.pause();
  }

  #readTerminal(prompt: string): Promise<PromptResult> {
    const rl = createInterface({
      input: this.input,
      output: this.output,
      terminal: true,
      history: [...this.#history],
      historySize: 1000,
      removeHistoryDuplicates: true,
    });
    rl.on("history", (history) => {
      this.#history = [...history];
    });
    this.#pendingCtrlC = false;
    this.#mode = "reading";
    this.#prompting = rl;
    this.#promptHidden = false;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: PromptResult): void => {
        if (settled) return;
        settled = true;
        this.#mode = "idle";
        this.#prompting = null;
        rl.close();
        resolve(result);
      };
      rl.on("line", (line) => finish({ kind: "line", text: line }));
      rl.on("SIGINT", () => {
        if (rl.line === "") {
          this.output.write("\n");
          finish({ kind: "interrupt" });
          return;
        }
        // Like a shell: Ctrl-C on a typed line discards it.
        this.output.write("^C\n");
        rl.write(null, { ctrl: true, name: "u" });
        rl.prompt();
      });
      rl.on("close", () => finish({ kind: "eof" }));
      rl.setPrompt(prompt);
      rl.prompt();
    });
  }

  #readPiped(): Promise<PromptResult> {
    if (this.#piped === null) {
      const rl = createInterface({ input: this.input, terminal: false });
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
