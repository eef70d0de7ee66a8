/**
 * The snapshot's `budget`: the tightest budget that applies to a session, as the wire shows it.
 *
 * Boundary rule: reads the usage sums (budget-check.ts) and shapes them; nothing else.
 */
import type { BudgetView } from "../../api/budget.js";
import type { SessionStorage } from "../storage/session-storage.js";
import { type BudgetSubject, budgetStatuses } from "./budget-check.js";
import { type BudgetStatus, tightestStatus } from "./budget-status.js";

/** `status` on the wire (cost rounded to micro-dollars). */
function budgetViewOf(status: BudgetStatus): BudgetView {
  const { budget, used, remaining } = status;
  return {
    scope: status.scope,
    period: budget.period,
    limit: { max_tokens: budget.maxTokens ?? null, max_cost_usd: budget.maxCostUsd ?? null },
    used: { tokens: used.tokens, cost_usd: micro(used.costUsd) },
    remaining: {
      tokens: remaining.tokens,
      cost_usd: remaining.costUsd === null ? null : micro(remaining.costUsd),
    },
    period_end: status.periodEnd === null ? null : new Date(status.periodEnd).toISOString(),
    exhausted: status.exhausted,
  };
}

/** The tightest budget that applies to `subject` at `now`, on the wire; null when none does. */
export async function sessionBudgetView(
  storage: Pick<SessionStorage, "usageTotals">,
  subject: BudgetSubject,
  now: number,
): Promise<BudgetView | null> {
  const tightest = tightestStatus(await budgetStatuses(storage, subject, now));
  return tightest === null ? null : budgetViewOf(tightest);
}

function micro(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}
