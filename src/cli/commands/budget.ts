/**
 * `skein budget show|set|clear ID`: the budget that applies to a session, and its own budget.
 *
 * Boundary rule: one request each (set and clear answer the budget in force after them); the
 * daemon checks the budget and refuses a bad one with its reason.
 */
import type { BudgetBody, BudgetView } from "../../api/budget.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { withSession } from "../session-ref.js";

/** `skein budget show ID [--json]`. */
export async function showBudget(
  context: CliContext,
  ref: string,
  options: { json?: boolean },
): Promise<ExitCode> {
  return withSession(context, ref, async (client, id) => {
    const { budget } = await client.getSession(id, 0);
    if (options.json === true) writeLine(context.terminal.out, JSON.stringify(budget, null, 2));
    else writeLine(context.terminal.out, `session ${id}: ${budgetText(budget)}`);
    return exitCodes.ok;
  });
}

/** `skein budget set ID [--tokens N] [--cost USD] [--period total|day]`. */
export async function setBudget(
  context: CliContext,
  ref: string,
  options: { tokens?: number; cost?: number; period?: string },
): Promise<ExitCode> {
  if (options.tokens === undefined && options.cost === undefined) {
    throw new CliError("give --tokens N, --cost USD or both", exitCodes.usage);
  }
  const period = options.period ?? "total";
  if (period !== "total" && period !== "day") {
    throw new CliError(`--period must be total or day, got ${JSON.stringify(period)}`, exitCodes.usage);
  }
  const body: BudgetBody = {
    ...(options.tokens === undefined ? {} : { maxTokens: options.tokens }),
    ...(options.cost === undefined ? {} : { maxCostUsd: options.cost }),
    period,
  };
  return withSession(context, ref, async (client, id) => {
    const answer = await client.budgets.set(id, body);
    writeLine(context.terminal.out, `session ${id}: budget set; ${budgetText(answer.budget)}`);
    return exitCodes.ok;
  });
}

/** `skein budget clear ID`. */
export async function clearBudget(context: CliContext, ref: string): Promise<ExitCode> {
  return withSession(context, ref, async (client, id) => {
    const answer = await client.budgets.remove(id);
    writeLine(context.terminal.out, `session ${id}: own budget removed; ${budgetText(answer.budget)}`);
    return exitCodes.ok;
  });
}

/** A budget in one line: whose, what was used of what, what is left, when it starts again. */
function budgetText(budget: BudgetView | null): string {
  if (budget === null) return "no budget applies";
  const parts: string[] = [];
  if (budget.limit.max_tokens !== null) {
    parts.push(
      `${budget.used.tokens} of ${budget.limit.max_tokens} tokens used (${budget.remaining.tokens} left)`,
    );
  }
  if (budget.limit.max_cost_usd !== null) {
    parts.push(
      `$${budget.used.cost_usd.toFixed(4)} of $${budget.limit.max_cost_usd} used ($${(budget.remaining.cost_usd ?? 0).toFixed(4)} left)`,
    );
  }
  const period = budget.period === "day" ? `today, until ${budget.period_end} (UTC)` : "in total";
  const state = budget.exhausted ? " — EXHAUSTED: raise it to go on" : "";
  return `${budget.scope} budget: ${parts.join(", ")} ${period}${state}`;
}
