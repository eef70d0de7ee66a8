/**
 * The check a turn runs before each of its model requests: the session's budgets as they are
 * now (its own from the replayed log, config.json's as last read, its schedule's from the
 * database) against what the durable usage sums say, expecting the next request to use what the
 * session's previous one did.
 *
 * Boundary rule: reads only; what a refusal does is the turn's.
 */
import type { BudgetsConfig } from "../../home/budget-config.js";
import type { RequestUsage } from "../../log/entries.js";
import type { Budget } from "../../model/budget.js";
import { budgetTokensOf, costNanosOf } from "../storage/budget-usage-table.js";
import type { SessionStorage } from "../storage/session-storage.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { type BudgetRefusal, checkBudgets } from "./budget-check.js";
import { taskAncestorBudgets } from "./task-ancestors.js";

/** What a turn's budget check reads. */
export interface TurnBudgetSource {
  storage: Pick<SessionStorage, "usageTotals" | "getSchedule" | "getSession">;
  sessionId: string;
  /** The session's place among sessions: whose `task` call made it (its ancestors' budgets apply too). */
  row: Pick<SessionRow, "parentId" | "task">;
  /** The session's own budget now (its replayed log's). */
  own(): Budget | null;
  /** config.json's `budgets` now. */
  config(): BudgetsConfig | undefined;
  /** The session's latest logged request usage (null: none yet). */
  lastUsage(): RequestUsage | null;
  /** The schedule the turn runs for (null: none). */
  scheduleId: string | null;
  now(): number;
}

/** Null when the next request of `profile` may go out, else the budget that stops it. */
export async function checkTurnBudget(
  source: TurnBudgetSource,
  profile: string | null,
): Promise<BudgetRefusal | null> {
  const last = source.lastUsage();
  const expected =
    last === null
      ? { tokens: 0, costUsd: 0 }
      : { tokens: budgetTokensOf(last), costUsd: costNanosOf(last) / 1e9 };
  const schedule =
    source.scheduleId === null
      ? null
      : {
          id: source.scheduleId,
          budget: (await source.storage.getSchedule(source.scheduleId))?.budget ?? null,
        };
  return checkBudgets(
    source.storage,
    {
      sessionId: source.sessionId,
      own: source.own(),
      config: source.config(),
      profile,
      schedule,
      ancestors: await taskAncestorBudgets(source.storage, source.row),
    },
    expected,
    source.now(),
  );
}
