/**
 * The last line of `skein run --json`: how the turn ended, its answer and its usage, as a
 * script reads it.
 *
 * Boundary rule: plain data from what the command already knows; nothing is written here.
 */
import type { PendingApproval } from "../../api/approvals.js";
import { unreachable } from "../../model/unreachable.js";
import type { TurnOutcome, UsageTotals } from "../turn-tracker.js";

/** The last line of `--json`: what a script needs to know about the turn. */
export interface RunResult {
  type: "result";
  session_id: string;
  /** How the turn stands: ended (completed, failed, interrupted), waits for a person, or was given up. */
  status: "completed" | "failed" | "interrupted" | "waiting" | "abandoned";
  /** The text of the turn's last model message ("" when there was none). */
  text: string;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    cached_prompt_tokens: number;
    total_tokens: number;
  };
  /**
   * Why it stopped: `finished` or `limit_reached` (completed); the error code (failed);
   * `interrupted`, `cancelled`, `forced` (a second Ctrl-C) or `broken_pipe`; `approval_needed` or
   * `question` (waiting); `daemon_restarted` (abandoned).
   */
  exit_reason: string;
  exit_code: number;
  /** Whether the session was deleted afterwards (--ephemeral, or a failed one-off session). */
  session_removed: boolean;
  errors: { code: string; message: string }[];
}

/** What the turn ended with, as the command sees it. */
export type RunEnd = TurnOutcome | PendingApproval | "forced" | "broken_pipe";

/** The usage of all the runs of one input, added up. */
export function sumUsage(parts: readonly UsageTotals[]): RunResult["usage"] {
  const sum = (pick: (usage: UsageTotals) => number): number =>
    parts.reduce((total, part) => total + pick(part), 0);
  return {
    prompt_tokens: sum((usage) => usage.prompt),
    completion_tokens: sum((usage) => usage.completion),
    cached_prompt_tokens: sum((usage) => usage.cached),
    total_tokens: sum((usage) => usage.total),
  };
}

/** The result line for a turn that ended with `outcome`. */
export function resultOf(
  sessionId: string,
  outcome: Exclude<RunEnd, "broken_pipe">,
  text: string,
  usage: RunResult["usage"],
  exitCode: number,
  removed: boolean,
): RunResult {
  const { status, exit_reason, errors } = endOf(outcome);
  return {
    type: "result",
    session_id: sessionId,
    status,
    text,
    usage,
    exit_reason,
    exit_code: exitCode,
    session_removed: removed,
    errors,
  };
}

/** The result's status, reason and errors for how the turn ended. */
function endOf(
  outcome: Exclude<RunEnd, "broken_pipe">,
): Pick<RunResult, "status" | "exit_reason" | "errors"> {
  if (outcome === "forced") return { status: "interrupted", exit_reason: "forced", errors: [] };
  if ("call_id" in outcome) {
    return {
      status: "waiting",
      exit_reason: outcome.tool === "ask_user" ? "question" : "approval_needed",
      errors: [],
    };
  }
  const errors = outcome.errors;
  switch (outcome.state) {
    case "completed":
      return { status: "completed", exit_reason: outcome.outcome ?? "finished", errors };
    case "failed":
      return { status: "failed", exit_reason: errors[0]?.code ?? "failed", errors };
    case "interrupted":
    case "cancelled":
      return { status: "interrupted", exit_reason: outcome.state, errors };
    case "abandoned":
    case "running":
      return { status: "abandoned", exit_reason: "daemon_restarted", errors };
    default:
      unreachable(outcome.state, "unexpected turn state");
  }
}
