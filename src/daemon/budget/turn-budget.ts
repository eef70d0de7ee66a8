/**
 * One turn's budget: the check before each of its model requests (an interceptor's
 * `inspectRequest`, so it runs before every request, not only the first) and the usage record
 * each answer is logged with. A refused request ends the run as `yielded`, without sending
 * anything; the turn then ends with outcome `budget_exhausted` (turn-run.ts), which says why.
 *
 * Boundary rule: it holds only the refusal, if any; every count it checks is read from storage
 * at the time of the request.
 */
import type { RequestUsage } from "../../log/entries.js";
import type { Usage } from "../../model/usage.js";
import type { ModelPrices } from "../../providers/model-limits.js";
import type { BeforeRequestAction } from "../../worker/index.js";
import type { BudgetRefusal } from "./budget-check.js";
import { requestUsageOf } from "./request-usage.js";
import { checkTurnBudget, type TurnBudgetSource } from "./turn-budget-check.js";

export class TurnBudget {
  readonly #source: TurnBudgetSource;
  #refusal: BudgetRefusal | null = null;
  /** The profile the turn's requests go to and its prices, once its client is bound. */
  #bound: { profile: string; prices: ModelPrices | null } | null = null;

  constructor(source: TurnBudgetSource) {
    this.#source = source;
  }

  /** The budget that stopped the turn before a request (null: none did). */
  get refusal(): BudgetRefusal | null {
    return this.#refusal;
  }

  /** The turn's client is bound: its requests go to `profile`, priced at `prices` (null: unknown). */
  bind(profile: string, prices: ModelPrices | null): void {
    this.#bound = { profile, prices };
  }

  /** Before a request: go on, or yield (the run ends) when a budget refuses it. */
  async beforeRequest(): Promise<BeforeRequestAction> {
    const refusal = await checkTurnBudget(this.#source, this.#bound?.profile ?? null);
    if (refusal === null) return { action: "continue" };
    this.#refusal = refusal;
    return { action: "yield" };
  }

  /** The record an answer is logged with (null: the provider reported no usage, or no client is bound). */
  usageRecord(usage: Usage): RequestUsage | null {
    const bound = this.#bound;
    return bound === null
      ? null
      : requestUsageOf(usage, bound.profile, bound.prices, this.#source.scheduleId);
  }
}
