/**
 * Prompts typed while a turn runs: a message is sent at once (the daemon queues it), a slash
 * command waits for the turn's end. Each shows as a dim note above the prompt until its turn.
 */
import type { InputReceipt } from "../../api/inputs.js";

/** One prompt typed ahead: a slash command to run later, or a message already sent. */
export type TypedAhead =
  | { kind: "command"; text: string }
  | { kind: "sent"; text: string; inputId: string; receipt: Promise<InputReceipt | null> };

/** The notes that list the queued prompts: each one's first line, shortened. */
export function queueNotes(queue: readonly TypedAhead[]): string[] {
  return queue.map((ahead) => {
    if (ahead.kind === "command" && ahead.text === "/exit")
      return "exits when the turn ends (Ctrl-C interrupts it)";
    const text = ahead.text.trim();
    const firstLine = text.split("\n")[0]!;
    const shown = `${firstLine.length > 60 ? `${firstLine.slice(0, 59)}…` : firstLine}${text.includes("\n") ? " …" : ""}`;
    return ahead.kind === "command" ? `queued: ${shown} (runs when the turn ends)` : `queued: ${shown}`;
  });
}
