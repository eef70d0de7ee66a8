/**
 * A budget: a cap on what model requests may use, in tokens and/or in US dollars, over a
 * period. The same shape everywhere it is written: config.json's `budgets`, `PUT
 * /sessions/{id}/budget`, a schedule's `budget`, and the log's `budget_changed` entries.
 *
 * Boundary rule: plain data and its one validator (`budgetProblem`), shared by config.json's
 * parser and the daemon's routes, so both accept exactly the same budgets.
 */

/**
 * What a budget's usage is counted over: `total` (everything its scope ever used) or `day` (the
 * current UTC day, from 00:00:00.000 UTC; the count starts again at 0 each day).
 */
export type BudgetPeriod = "total" | "day";

/** The periods a budget may name, in the order docs list them. */
const budgetPeriods: readonly BudgetPeriod[] = ["total", "day"];

/**
 * A cap on model requests: at least one of `maxTokens` (prompt + output tokens of every request,
 * cached ones included) and `maxCostUsd` (their cost at the profile's prices; requests to a model
 * without known prices cost nothing toward it).
 */
export interface Budget {
  maxTokens?: number;
  maxCostUsd?: number;
  period: BudgetPeriod;
}

/** Highest `maxTokens` a budget may set (fits every store's integers exactly). */
export const maxBudgetTokens = 2 ** 50;
/** Highest `maxCostUsd` a budget may set. */
export const maxBudgetCostUsd = 1_000_000_000;

const budgetKeys = ["maxTokens", "maxCostUsd", "period"];

/**
 * Why `value` is not a budget (a sentence naming the field), or null when it is one. `defaultPeriod`
 * is used when `period` is absent (null: `period` is required).
 */
export function budgetProblem(value: unknown, defaultPeriod: BudgetPeriod | null = null): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "a budget must be an object";
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !budgetKeys.includes(key));
  if (unknown !== undefined) return `unknown budget field "${unknown}" (known: ${budgetKeys.join(", ")})`;
  const { maxTokens, maxCostUsd, period } = record;
  if (maxTokens === undefined && maxCostUsd === undefined)
    return `a budget must set "maxTokens", "maxCostUsd" or both`;
  if (
    maxTokens !== undefined &&
    (typeof maxTokens !== "number" ||
      !Number.isSafeInteger(maxTokens) ||
      maxTokens < 0 ||
      maxTokens > maxBudgetTokens)
  ) {
    return `"maxTokens" must be a whole number from 0 to ${maxBudgetTokens}`;
  }
  if (
    maxCostUsd !== undefined &&
    (typeof maxCostUsd !== "number" ||
      !Number.isFinite(maxCostUsd) ||
      maxCostUsd < 0 ||
      maxCostUsd > maxBudgetCostUsd)
  ) {
    return `"maxCostUsd" must be a number from 0 to ${maxBudgetCostUsd}`;
  }
  if (period === undefined)
    return defaultPeriod === null ? `a budget must name its "period" (total or day)` : null;
  if (typeof period !== "string" || !(budgetPeriods as readonly string[]).includes(period)) {
    return `"period" must be one of ${budgetPeriods.join(", ")}`;
  }
  return null;
}

/** `value` as a budget (already checked by `budgetProblem`), its period defaulted, with no other fields. */
export function budgetOf(value: Record<string, unknown>, defaultPeriod: BudgetPeriod): Budget {
  const budget: Budget = { period: (value.period as BudgetPeriod | undefined) ?? defaultPeriod };
  if (value.maxTokens !== undefined) budget.maxTokens = value.maxTokens as number;
  if (value.maxCostUsd !== undefined) budget.maxCostUsd = value.maxCostUsd as number;
  return budget;
}
