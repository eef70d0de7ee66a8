/**
 * The dim line `skein chat` prints after each turn: how it ended when not plainly, the model,
 * the turn's and the session's tokens, and how full the context is.
 */
import type { SessionContext } from "../../api/session-snapshot.js";
import type { Paint } from "../render/terminal.js";
import type { TurnOutcome, UsageTotals } from "../turn-tracker.js";

/** What the footer of one turn says. */
export interface TurnFooterFacts {
  state: TurnOutcome["state"];
  model: string | null;
  /** The turn's own usage. */
  usage: UsageTotals;
  sessionTokens: number;
  /** The session's context after the turn (null when it could not be read). */
  context: SessionContext | null;
}

/** The footer line of a turn, styled. */
export function turnFooter(paint: Paint, facts: TurnFooterFacts): string {
  const parts: string[] = [];
  if (facts.state === "interrupted" || facts.state === "cancelled") parts.push(paint.yellow("interrupted"));
  else if (facts.state === "failed") parts.push(paint.red("turn failed"));
  else if (facts.state === "abandoned") parts.push(paint.yellow("turn cut short by a daemon restart"));
  parts.push(facts.model ?? "no model");
  if (facts.usage.total > 0) parts.push(`${facts.usage.prompt} in / ${facts.usage.completion} out`);
  parts.push(`session ${facts.sessionTokens} tokens`);
  const context = facts.context;
  if (context !== null && context.context_window > 0) {
    const percent = Math.round((context.used_tokens / context.context_window) * 100);
    parts.push(`context ${percent}% of ${Math.round(context.context_window / 1000)}k`);
  }
  return paint.dim(`── ${parts.join(" · ")}`);
}
