/**
 * How a turn ended, as the log, the turns table and the stream tell it: completed, stopped from
 * outside (an interrupt, the actor stopping, a step the storage refused, a log found corrupt) or
 * failed (the provider, the workspace, a refusal), with the error code and message clients see.
 *
 * Boundary rule: plain values and pure functions; `TurnRun` (turn-run.ts) decides which applies.
 */
import type { EndedTurnState } from "../../api/inputs.js";
import type { Outcome } from "../../log/entries.js";
import type { Item } from "../../model/items.js";
import { LlmClientError } from "../../model/llm-client.js";
import type { Usage } from "../../model/usage.js";
import type { WorkerError, WorkerResult } from "../../worker/index.js";
import { refusalCode } from "../../worker/refusal.js";
import { isRepairableRefusal, repairHint } from "../session/context-repair.js";

/**
 * Why a turn was stopped from outside: a user's interrupt, the actor stopping, the daemon
 * shutting down, a step the storage could not write, or a log found changed behind its back.
 */
export type AbortCause = "interrupted" | "crashed" | "shutdown" | "storage" | "corrupt";

/** How a turn ended, for the log, the turns table and the stream. */
export interface TurnEnding {
  state: EndedTurnState;
  outcome: Outcome;
  interrupted: boolean;
  requestCount: number;
  /** Token usage of every model request of the turn, added up. */
  usage: Usage;
  error?: { code: string; message: string };
  /**
   * The model refused the turn: its entries leave the context of later requests (a refused turn
   * sent again is refused again). `detail`: the refusal's text.
   */
  refused?: { detail: string };
  /**
   * An interrupt cut the model's answer short while it streamed: what it had streamed (text and
   * thinking), logged with the end as an `assistant_items` entry marked interrupted.
   */
  partial?: readonly Item[];
}

/** A turn whose loop ran to its end. */
export function completedEnding(
  result: WorkerResult,
  requestCount: number,
  interrupted: boolean,
  usage: Usage,
): TurnEnding {
  return { state: "completed", outcome: { type: result }, interrupted, requestCount, usage };
}

/**
 * A turn a budget stopped before its next model request (`message`: which budget and how to go
 * on): completed, not failed, and not interrupted (nothing was cut: the next input or `continue`
 * goes on from here once the budget allows it).
 */
export function budgetExhaustedEnding(requestCount: number, usage: Usage, message: string): TurnEnding {
  return {
    state: "completed",
    outcome: { type: "budget_exhausted", message },
    interrupted: false,
    requestCount,
    usage,
  };
}

/** A turn that failed with `code` (the error event's) and `message`. */
export function failedEnding(requestCount: number, usage: Usage, code: string, message: string): TurnEnding {
  return {
    state: "failed",
    outcome: { type: "error", message },
    interrupted: true,
    requestCount,
    usage,
    error: { code, message },
  };
}

/** The session a turn ran in, as its error message names it. */
export interface EndingSession {
  id: string;
  /** How many items its history holds. */
  historyItems: number;
}

/**
 * How a turn whose loop ended with `error` ended: as the cause it was stopped for (`abort`,
 * with its detail), else as the model's or the provider's failure.
 */
export function endingOfError(
  error: WorkerError,
  requestCount: number,
  usage: Usage,
  abort: { cause: AbortCause; detail: string } | null,
  session: EndingSession,
): TurnEnding {
  if (abort?.cause === "storage") return storageFailedEnding(requestCount, usage, abort.detail);
  if (abort?.cause === "corrupt") {
    return failedEnding(
      requestCount,
      usage,
      "log_corrupt",
      "the session's log fails verification; the turn stopped",
    );
  }
  if (error.kind === "cancelled" || abort !== null) {
    const state: EndedTurnState = abort?.cause === "interrupted" ? "interrupted" : "failed";
    const ending: TurnEnding = {
      state,
      outcome: { type: "error", message: error.message },
      interrupted: true,
      requestCount,
      usage,
    };
    if (state === "failed") ending.error = { code: "session_error", message: "the turn was stopped" };
    // Only a user's interrupt keeps what streamed: the user saw it and chose to stop there.
    else if (error.partial !== undefined) ending.partial = error.partial;
    return ending;
  }
  const cause = error.cause;
  if (error.kind === "client" && cause instanceof LlmClientError && cause.code === refusalCode) {
    return {
      ...failedEnding(requestCount, usage, "model_refused", cause.message),
      refused: { detail: cause.message },
    };
  }
  if (error.kind === "client" && cause instanceof LlmClientError) {
    // Most provider messages already start with the provider's label (and the HTTP status).
    const message =
      (cause.message.startsWith(cause.provider) ? cause.message : `${cause.provider}: ${cause.message}`) +
      // Only a history with more than the message being answered holds something to repair.
      (session.historyItems > 1 ? repairHint(cause, session.id) : "");
    return failedEnding(requestCount, usage, providerErrorCode(cause), message);
  }
  return failedEnding(requestCount, usage, "turn_failed", error.message);
}

/** How a turn ends when a step of it could not be written (`detail`: the storage's reason). */
export function storageFailedEnding(requestCount: number, usage: Usage, detail: string): TurnEnding {
  return failedEnding(requestCount, usage, "storage_unavailable", storageUnavailableMessage(detail));
}

/** The error event's text when a turn's log entries could not be written. */
export function storageUnavailableMessage(detail: string): string {
  return `the session's log could not be written (${detail}); the turn stopped and is recorded as failed once storage accepts writes again`;
}

function providerErrorCode(error: LlmClientError): string {
  if (error.kind === "config") return "provider_unconfigured";
  return isRepairableRefusal(error) ? "provider_refused" : "provider_error";
}
