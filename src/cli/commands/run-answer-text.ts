/**
 * The answer `skein run --json` reports: the text of the last model message of the turn's runs,
 * collected from the stream as it arrives.
 */
import type { SessionEvent } from "../../api/session-events.js";

/** The text of each of our runs' model messages, to report the last one. */
export class AnswerText {
  readonly #messages = new Map<string, string>();

  /** Add `event`'s text when it is a text delta of one of our runs. */
  observe(event: SessionEvent, ours: (turnId: string | null) => boolean): void {
    if (event.type !== "text" || !ours(event.data.run_id)) return;
    const id = event.data.message_id;
    this.#messages.set(id, (this.#messages.get(id) ?? "") + event.data.text);
  }

  /** The newest message's text ("" before any). */
  last(): string {
    return [...this.#messages.values()].at(-1) ?? "";
  }
}
