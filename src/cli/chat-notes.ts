/**
 * The dim lines above the chat's prompt: the live line of each running `task`, then the prompts
 * queued behind the running turn. Redrawn only when they change (the turn's status line asks on
 * every tick, so a task's elapsed time moves with it).
 *
 * Boundary rule: composes and hands the lines to the prompt reader; their content is the
 * callers' (chat-tasks.ts, chat-typed-ahead.ts).
 */

/** The chat's notes: task lines first, then the queue. */
export class ChatNotes {
  #queue: readonly string[] = [];
  #shown = "";

  constructor(
    private readonly reader: { setNotes(notes: readonly string[]): void },
    private readonly taskLines: () => readonly string[],
  ) {}

  /** The queued prompts' lines changed. */
  setQueue(lines: readonly string[]): void {
    this.#queue = lines;
    this.refresh();
  }

  /** Draw the notes again if they changed. */
  refresh(): void {
    const notes = [...this.taskLines(), ...this.#queue];
    const key = notes.join("\n");
    if (key === this.#shown) return;
    this.#shown = key;
    this.reader.setNotes(notes);
  }
}
