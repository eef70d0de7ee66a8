/**
 * A budget's arithmetic: what its period is now (the UTC day, or all time), what is left of it
 * given what was used, and whether a model request may still go out.
 *
 * Boundary rule: pure functions of a budget, a usage and a time; reading the usage is
 * budget-check.ts's.
 */
import type { Budget } from "../../model/budget.js";
import { dayMs, type UsageTotals, utcDayOf } from "../storage/budget-usage-table.js";

/** Whose budget it is: the session's own (or config.json's default), its profile's, its schedule's. */
export type BudgetScope = "session" | "profile" | "schedule";

/** One budget that applies to a session's next model request, with what it has used. */
export interface BudgetStatus {
  scope: BudgetScope;
  budget: Budget;
  used: UsageTotals;
  /** What is left: max(0, limit - used) per limit the budget sets (null: no such limit). */
  remaining: { tokens: number | null; costUsd: number | null };
  /** When the count starts again (ms; the next UTC midnight), null for a `total` budget. */
  periodEnd: number | null;
  /** Nothing is left of one of its limits. */
  exhausted: boolean;
}

/** The first UTC day a budget counts at `now` (null: every day, a `total` budget). */
export function periodStartDay(budget: Budget, now: number): number | null {
  return budget.period === "day" ? utcDayOf(now) : null;
}

/** When `budget`'s current period ends (ms), null when it never does. */
export function periodEnd(budget: Budget, now: number): number | null {
  return budget.period === "day" ? (utcDayOf(now) + 1) * dayMs : null;
}

/** Micro-dollars: costs are compared as integers, so a float sum never decides a refusal. */
function nanos(usd: number): number {
  return Math.round(usd * 1_000_000_000);
}

/** The status of `budget` of `scope` at `now`, having used `used`. */
export function budgetStatus(
  scope: BudgetScope,
  budget: Budget,
  used: UsageTotals,
  now: number,
): BudgetStatus {
  const tokens = budget.maxTokens === undefined ? null : Math.max(0, budget.maxTokens - used.tokens);
  const costUsd =
    budget.maxCostUsd === undefined
      ? null
      : Math.max(0, nanos(budget.maxCostUsd) - nanos(used.costUsd)) / 1_000_000_000;
  return {
    scope,
    budget,
    used,
    remaining: { tokens, costUsd },
    periodEnd: periodEnd(budget, now),
    exhausted: tokens === 0 || costUsd === 0,
  };
}

/**
 * Whether a model request may go out under `status` when it is expected to use `expected` (the
 * session's previous request's usage: the best guess of the next one before it is sent). It may
 * when something is left of every limit and the expected usage fits in what is left, so a
 * session stops before the request that would take it past its limit, not after.
 */
export function allowsRequest(status: BudgetStatus, expected: UsageTotals): boolean {
  if (status.exhausted) return false;
  const { tokens, costUsd } = status.remaining;
  if (tokens !== null && expected.tokens > tokens) return false;
  if (costUsd !== null && nanos(expected.costUsd) > nanos(costUsd)) return false;
  return true;
}

/**
 * The status a client is shown: an exhausted one first, else the one with the least share left
 * (of its tightest limit); null when none applies.
 */
export function tightestStatus(statuses: readonly BudgetStatus[]): BudgetStatus | null {
  let best: BudgetStatus | null = null;
  for (const status of statuses) {
    if (best === null || shareLeft(status) < shareLeft(best)) best = status;
  }
  return best;
}

/** The smallest share left of any limit of `status` (0 when exhausted, 1 when nothing was used). */
function shareLeft(status: BudgetStatus): number {
  const { budget, remaining } = status;
  let share = 1;
  if (budget.maxTokens !== undefined && remaining.tokens !== null)
    share = Math.min(share, budget.maxTokens === 0 ? 0 : remaining.tokens / budget.maxTokens);
  if (budget.maxCostUsd !== undefined && remaining.costUsd !== null)
    share = Math.min(share, budget.maxCostUsd === 0 ? 0 : remaining.costUsd / budget.maxCostUsd);
  return share;
}
