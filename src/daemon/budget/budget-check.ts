/**
 * Which budgets apply to a session's next model request and whether it may go out: the
 * session's own budget (its log's latest `budget_changed`, else config.json's `budgets.session`),
 * that of each session whose `task` calls made it (a subagent works for its parent's turn, and a
 * session budget counts its children's usage: a child stops when its parent's budget is used
 * up, not only the parent after it), its profile's (`budgets.profiles`), and its schedule's
 * when a schedule's firing started the turn. What each has used is read from `budget_usage`
 * (the durable sums of what the log holds), never from memory, so every node and every restart
 * sees the same count.
 *
 * Boundary rule: reads only; the turn decides what a refusal does (turn-run.ts ends the turn
 * with `budget_exhausted`).
 */
import type { BudgetsConfig } from "../../home/budget-config.js";
import type { Budget } from "../../model/budget.js";
import type { UsageScope, UsageTotals } from "../storage/budget-usage-table.js";
import type { SessionStorage } from "../storage/session-storage.js";
import {
  allowsRequest,
  type BudgetScope,
  type BudgetStatus,
  budgetStatus,
  periodStartDay,
} from "./budget-status.js";

/** What decides a session's budgets. */
export interface BudgetSubject {
  sessionId: string;
  /** The session's own budget (null: config.json's `budgets.session`, if any, applies). */
  own: Budget | null;
  /** config.json's `budgets`, as it is now. */
  config: BudgetsConfig | undefined;
  /** The provider profile the request goes to (null: unknown, no profile budget applies). */
  profile: string | null;
  /** The schedule whose firing started the turn, and its budget. */
  schedule: { id: string; budget: Budget | null } | null;
  /** The sessions whose `task` calls made this one, parent first, with their own budgets. */
  ancestors: readonly SessionBudget[];
}

/** A session and its own budget (null: config.json's `budgets.session`, if any, applies). */
export interface SessionBudget {
  sessionId: string;
  own: Budget | null;
}

/** A budget that applies, and whose usage it counts. */
interface AppliedBudget {
  scope: BudgetScope;
  budget: Budget;
  usage: UsageScope;
}

/** The budgets that apply to `subject`'s requests. */
function appliedBudgets(subject: BudgetSubject): AppliedBudget[] {
  const applied: AppliedBudget[] = [];
  for (const { sessionId, own } of [
    { sessionId: subject.sessionId, own: subject.own },
    ...subject.ancestors,
  ]) {
    const session = own ?? subject.config?.session ?? null;
    if (session !== null)
      applied.push({ scope: "session", budget: session, usage: { kind: "session", sessionId } });
  }
  const profiles = subject.config?.profiles;
  if (subject.profile !== null && profiles !== undefined && Object.hasOwn(profiles, subject.profile)) {
    applied.push({
      scope: "profile",
      budget: profiles[subject.profile]!,
      usage: { kind: "profile", profile: subject.profile },
    });
  }
  const schedule = subject.schedule;
  if (schedule !== null && schedule.budget !== null) {
    applied.push({
      scope: "schedule",
      budget: schedule.budget,
      usage: { kind: "schedule", scheduleId: schedule.id },
    });
  }
  return applied;
}

/** The status of every budget that applies to `subject` at `now` (empty: none does). */
export function budgetStatuses(
  storage: Pick<SessionStorage, "usageTotals">,
  subject: BudgetSubject,
  now: number,
): Promise<BudgetStatus[]> {
  return statusesOf(storage, appliedBudgets(subject), now);
}

function statusesOf(
  storage: Pick<SessionStorage, "usageTotals">,
  applied: readonly AppliedBudget[],
  now: number,
): Promise<BudgetStatus[]> {
  return Promise.all(
    applied.map(async ({ scope, budget, usage }) =>
      budgetStatus(scope, budget, await storage.usageTotals(usage, periodStartDay(budget, now)), now),
    ),
  );
}

/** Why a request may not go out: the budget that refused it, and what a person is told. */
export interface BudgetRefusal {
  status: BudgetStatus;
  message: string;
}

/**
 * Before a model request of `subject` expected to use `expected`: null when every budget that
 * applies allows it, else the first that refuses it.
 */
export async function checkBudgets(
  storage: Pick<SessionStorage, "usageTotals">,
  subject: BudgetSubject,
  expected: UsageTotals,
  now: number,
): Promise<BudgetRefusal | null> {
  const applied = appliedBudgets(subject);
  const statuses = await statusesOf(storage, applied, now);
  for (const [index, status] of statuses.entries()) {
    if (!allowsRequest(status, expected)) {
      const usage = applied[index]!.usage;
      const owner =
        usage.kind === "session" && usage.sessionId !== subject.sessionId ? usage.sessionId : null;
      return { status, message: refusalText(status, subject, owner) };
    }
  }
  return null;
}

/**
 * What a person reads when `status` stops a turn: which budget, how much of it was used, how to
 * go on. `owner`: the session whose `task` calls made this one, when its budget is the one.
 */
function refusalText(status: BudgetStatus, subject: BudgetSubject, owner: string | null): string {
  const { budget, used } = status;
  const limits: string[] = [];
  if (budget.maxTokens !== undefined) limits.push(`${used.tokens} of ${budget.maxTokens} tokens`);
  if (budget.maxCostUsd !== undefined) limits.push(`$${used.costUsd.toFixed(4)} of $${budget.maxCostUsd}`);
  const period = budget.period === "day" ? "today (UTC)" : "in total";
  const whose =
    owner === null ? whoseBudget(status.scope, subject) : `session ${owner}'s budget (this task's)`;
  const raise =
    status.scope === "session"
      ? `raise it (PUT /sessions/${owner ?? subject.sessionId}/budget, skein budget set) and continue`
      : status.scope === "profile"
        ? `raise it in config.json's "budgets" or wait for the next UTC day, then continue`
        : "raise the schedule's budget or wait for its next period, then continue";
  const what = status.exhausted ? "is used up" : "would be exceeded by the next model request";
  return `${whose} ${what} (used ${limits.join(" and ")} ${period}); ${raise}`;
}

function whoseBudget(scope: BudgetScope, subject: BudgetSubject): string {
  switch (scope) {
    case "session":
      return "the session's budget";
    case "profile":
      return `profile ${subject.profile ?? ""}'s budget`;
    case "schedule":
      return `schedule ${subject.schedule?.id ?? ""}'s budget`;
  }
}
