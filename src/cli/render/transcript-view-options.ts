/** What a transcript view is told at construction: where it writes, and what it shows. */
import type { OutputStream } from "./terminal.js";

export interface TranscriptViewOptions {
  /** Where answer text goes. */
  text: OutputStream;
  /** Where everything else goes: thinking, tool lines, notes, notices. */
  aside: OutputStream;
  showThinking: boolean;
  /**
   * A workspace file's text now (for the diff of an edit that just finished: line numbers and
   * context); edits seen in history are diffed from their arguments alone.
   */
  readWorkspaceFile?: (path: string) => string | null;
  /** When thinking is hidden, still say (in one dim line) that the model thinks. */
  collapseThinking?: boolean;
  /**
   * Render answers' markdown (a terminal with colour): each line is shown as it streams and
   * redrawn rendered once its newline arrives.
   */
  markdown?: boolean;
  /** Show user prompts from history (inputs sent by this process are never echoed). */
  showUserEntries: boolean;
  /** What shows that the turn is busy (a spinner, or the chat's status line). */
  spinner?: BusyIndicator | null;
  /** Render only what belongs to these runs; default: everything. */
  turnFilter?: (turnId: string | null) => boolean;
  /** Print `error` events (default true; `run` reports the error once, at the end, instead). */
  showErrors?: boolean;
  /**
   * Told before and after each write, so an input line on the same terminal (the chat prompt)
   * can step aside while output arrives and come back when the output has ended its line.
   */
  surroundWrites?: { before(): void; after(lineOpen: boolean, plain: string): void };
}

/** Shows (start) and hides (stop) a short "busy" text while nothing else is being written. */
export interface BusyIndicator {
  start(text: string): void;
  stop(): void;
}
