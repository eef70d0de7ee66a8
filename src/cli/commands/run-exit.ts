/**
 * How `skein run` leaves after its turn: the exit code of a turn that ended, or the failure
 * (message, hint, exit code) of one that failed or waits for a person.
 *
 * Boundary rule: deciding the exit only; the caller prints the failure and the --json result.
 */
import type { PendingApproval } from "../../api/approvals.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { approvalSummary, requestSubject } from "../render/approval-prompt.js";
import type { TurnOutcome } from "../turn-tracker.js";

/** The failure of a run whose turn waits for a person: the call stays waiting; say how to answer it. */
export function waitsForPerson(sessionId: string, request: PendingApproval, removed: boolean): CliError {
  const session = sessionId.slice(0, 13);
  if (removed) {
    return new CliError(
      `the turn stopped to wait for ${request.tool === "ask_user" ? `an answer (${requestSubject(request)})` : `approval of ${approvalSummary(request)}`}; the --ephemeral session was deleted`,
      exitCodes.approvalNeeded,
      "run with --approve, or without --ephemeral to answer it with skein approve/deny",
    );
  }
  if (request.tool === "ask_user") {
    return new CliError(
      `the agent asks: ${requestSubject(request)} (call ${request.call_id})`,
      exitCodes.approvalNeeded,
      `answer with \`skein approve ${session} ${request.call_id} -m "…"\``,
    );
  }
  if (request.kind === "unknown_outcome") {
    return new CliError(
      `a daemon restart cut ${approvalSummary(request)} short and a person must say what became of it (call ${request.call_id})`,
      exitCodes.approvalNeeded,
      `answer with \`skein resolve ${session} ${request.call_id} retry|skip|done\``,
    );
  }
  return new CliError(
    `the turn waits for approval of ${approvalSummary(request)} (call ${request.call_id})`,
    exitCodes.approvalNeeded,
    `answer with \`skein approve ${session} ${request.call_id}\` or \`skein deny ${session} ${request.call_id} -m "why"\`, or run with --approve`,
  );
}

/**
 * The exit code of a turn that ended; throws the CliError of one that failed or was given up.
 * `sessionKept` is false when the command deletes the session afterwards (nothing to repair then).
 */
export function report(
  context: CliContext,
  sessionId: string,
  outcome: TurnOutcome | "forced",
  sessionKept = true,
): ExitCode {
  if (outcome === "forced") return exitCodes.interrupted;
  switch (outcome.state) {
    case "completed":
      if (outcome.outcome !== "budget_exhausted") return exitCodes.ok;
      throw new CliError(
        "the turn stopped before its next model request: a budget that applies to the session is used up",
        exitCodes.budgetExhausted,
        sessionKept
          ? `see \`skein budget show ${sessionId.slice(0, 13)}\`; raise it (\`skein budget set ${sessionId.slice(0, 13)} --tokens N\`) and run again in the session to go on`
          : 'raise the budget (config.json\'s "budgets") and run again',
      );
    case "interrupted":
    case "cancelled":
      context.terminal.err.stream.write("skein: the turn was interrupted\n");
      return exitCodes.interrupted;
    case "failed": {
      const message = outcome.errors.map((error) => error.message).join("; ") || "the turn failed";
      throw new CliError(
        message,
        exitCodes.error,
        hintFor(
          outcome.errors.map((error) => error.code),
          sessionKept ? sessionId : null,
        ),
      );
    }
    case "abandoned":
      throw new CliError(
        `the daemon restarted during the turn and the session went on without it; see \`skein show ${sessionId.slice(0, 13)}\``,
      );
    case "running":
      throw new CliError("the turn is still running");
    default: {
      const unknown: never = outcome.state;
      throw new CliError(`unexpected turn state ${String(unknown)}`);
    }
  }
}

/**
 * What to do about a failed turn, from its error codes (a provider problem has a command that
 * checks it; a refusal of the history, when the session stays, a repair).
 */
function hintFor(codes: readonly string[], sessionId: string | null): string | undefined {
  if (codes.includes("provider_unconfigured")) return "see `skein config --help`";
  if (codes.includes("provider_refused")) {
    const check = "check the provider with `skein config test`";
    if (sessionId === null) return check;
    const session = sessionId.slice(0, 13);
    return `${check}; if it refuses something in the session's history, \`skein show ${session}\` lists the entries by position and \`skein repair ${session} --from POSITION\` leaves them out`;
  }
  if (codes.includes("provider_error")) return "check the provider with `skein config test`";
  return undefined;
}
