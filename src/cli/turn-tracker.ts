/**
 * What a session watcher (session-watcher.ts) knows of the session's turns: which turn took
 * which input, how turns ended, their errors and token usage, the inputs still pending, and
 * which turn continues one a restart abandoned.
 *
 * Boundary rule: bookkeeping only, fed by the watcher from the stream, receipts and snapshots;
 * waiting and notifying are the watcher's.
 */
import type { InputReceipt, TurnState } from "../api/inputs.js";
import type { SessionEventData } from "../api/session-events.js";

/** How the turn that took an input ended. */
export interface TurnOutcome {
  turnId: string | null;
  state: TurnState | "cancelled";
  /** Why a completed turn stopped (`finished`, `limit_reached`, …), when its end was seen live. */
  outcome?: SessionEventData["turn_completed"]["outcome"];
  errors: { code: string; message: string }[];
}

/** Token counts of one turn or of the whole session. */
export interface UsageTotals {
  prompt: number;
  completion: number;
  cached: number;
  total: number;
}

const terminalStates: ReadonlySet<string> = new Set(["completed", "interrupted", "failed"]);

/** What a session's turns took, used and came to, as far as a watcher has seen. */
export class TurnTracker {
  /** Inputs queued and not yet taken by a turn. */
  readonly pendingInputs = new Set<string>();
  readonly #turnUsage = new Map<string, UsageTotals>();
  readonly #turnOfInput = new Map<string, string>();
  readonly #ended = new Map<string, TurnState>();
  readonly #turnOutcome = new Map<string, SessionEventData["turn_completed"]["outcome"]>();
  readonly #errors = new Map<string, { code: string; message: string }[]>();
  readonly #successor = new Map<string, string>();
  readonly #cancelled = new Set<string>();
  /** Completed turns a live `input` event ended: their `turn_completed` (the outcome) follows. */
  readonly #completionDue = new Set<string>();

  /** The turn that took an input, once known. */
  turnOf(inputId: string): string | null {
    return this.#turnOfInput.get(inputId) ?? null;
  }

  /** The turn that took an input and the turns that continued it after restarts, oldest first. */
  turnsOf(inputId: string): string[] {
    const turns: string[] = [];
    for (
      let turnId = this.#turnOfInput.get(inputId);
      turnId !== undefined;
      turnId = this.#successor.get(turnId)
    ) {
      turns.push(turnId);
    }
    return turns;
  }

  /** Token usage of a turn so far. */
  usageOf(turnId: string | null): UsageTotals {
    return (turnId === null ? undefined : this.#turnUsage.get(turnId)) ?? emptyUsage();
  }

  /** Learn from a receipt (the 202 of a PUT, a live `input` event, or a receipt fetched after a reset). */
  noteReceipt(receipt: InputReceipt): void {
    if (receipt.turn !== null) this.#turnOfInput.set(receipt.id, receipt.turn.id);
    if (receipt.delivery === "pending") this.pendingInputs.add(receipt.id);
    else this.pendingInputs.delete(receipt.id);
    if (receipt.delivery === "cancelled") this.#cancelled.add(receipt.id);
    if (receipt.turn !== null && terminalStates.has(receipt.turn.state)) {
      this.#ended.set(receipt.turn.id, receipt.turn.state);
    }
  }

  /** How the input's turn ended, or null while it has not. */
  outcomeOf(inputId: string): TurnOutcome | null {
    if (this.#cancelled.has(inputId) && !this.#turnOfInput.has(inputId)) {
      return { turnId: null, state: "cancelled", errors: [] };
    }
    let turnId = this.#turnOfInput.get(inputId);
    if (turnId === undefined) return null;
    const errors: TurnOutcome["errors"] = [...(this.#errors.get(turnId) ?? [])];
    for (let next = this.#successor.get(turnId); next !== undefined; next = this.#successor.get(turnId)) {
      turnId = next;
      errors.push(...(this.#errors.get(turnId) ?? []));
    }
    const state = this.#ended.get(turnId);
    if (state === undefined) return null;
    const outcome = this.#turnOutcome.get(turnId);
    if (outcome !== undefined) return { turnId, state, outcome, errors };
    return this.#completionDue.has(turnId) ? null : { turnId, state, errors };
  }

  /** A live `input` event: a turn it shows completed has its outcome in the `turn_completed` that follows. */
  inputSeen(receipt: InputReceipt): void {
    if (receipt.turn?.state === "completed") this.#completionDue.add(receipt.turn.id);
    this.noteReceipt(receipt);
  }

  /** A live `usage` event: counted to its turn (none: a compaction a client asked for). */
  usageSeen(usage: SessionEventData["usage"]): void {
    if (usage.run_id === null) return;
    const totals = this.#turnUsage.get(usage.run_id) ?? emptyUsage();
    addUsage(totals, usage);
    this.#turnUsage.set(usage.run_id, totals);
  }

  /** A live `error` event: kept with its turn (none: not a turn's). */
  errorSeen(error: SessionEventData["error"]): void {
    const turnId = error.run_id;
    if (turnId === null) return;
    const list = this.#errors.get(turnId) ?? [];
    list.push({ code: error.code, message: error.message });
    this.#errors.set(turnId, list);
  }

  /** A live `turn_completed` event: the turn ended, how, and which inputs it took. */
  turnCompleted(completed: SessionEventData["turn_completed"]): void {
    this.#completionDue.delete(completed.run_id);
    this.#ended.set(completed.run_id, completed.state);
    this.#turnOutcome.set(completed.run_id, completed.outcome);
    for (const inputId of completed.input_ids) {
      this.#turnOfInput.set(inputId, completed.run_id);
      this.pendingInputs.delete(inputId);
    }
  }

  /** The stream was reset: no `turn_completed` seen before it is still to come. */
  resetSeen(): void {
    this.#completionDue.clear();
  }

  /**
   * After a restart, a turn the receipt shows abandoned continues in the turn running now, or,
   * when none (another) runs, ended abandoned.
   */
  followAbandoned(turn: InputReceipt["turn"], runningTurnId: string | null): void {
    if (turn === null || turn.state !== "abandoned") return;
    if (runningTurnId !== null && runningTurnId !== turn.id) this.#successor.set(turn.id, runningTurnId);
    else this.#ended.set(turn.id, "abandoned");
  }
}

/** Add one `usage` event's token counts to `totals`. */
export function addUsage(totals: UsageTotals, usage: SessionEventData["usage"]): void {
  totals.prompt += usage.prompt_tokens;
  totals.completion += usage.completion_tokens;
  totals.cached += usage.cached_prompt_tokens;
  totals.total += usage.total_tokens;
}

/** No tokens yet. */
export function emptyUsage(): UsageTotals {
  return { prompt: 0, completion: 0, cached: 0, total: 0 };
}
