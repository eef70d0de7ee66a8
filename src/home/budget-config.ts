/**
 * The `budgets` section of config.json: `{"session": {"maxTokens": 200000}, "profiles": {"work":
 * {"maxCostUsd": 20, "period": "day"}}}`. `session`: the budget of every session that has none
 * of its own (`PUT /sessions/{id}/budget` sets one), `period` `total` unless given; `profiles`:
 * per provider profile, a budget shared by all the profile's sessions, `period` `day` unless
 * given. Each budget is `{"maxTokens"?, "maxCostUsd"?, "period"?}` (model/budget.ts).
 *
 * Boundary rule: the section's format only; the daemon's checks are daemon/budget/'s.
 */
import { type Budget, budgetOf, budgetProblem } from "../model/budget.js";

/** The `budgets` section, periods filled in. */
export interface BudgetsConfig {
  session?: Budget;
  profiles?: Record<string, Budget>;
}

const knownKeys = ["session", "profiles"];

/** Validates the `budgets` value; `fail` throws with the reason. */
export function parseBudgetsConfig(value: unknown, fail: (reason: string) => never): BudgetsConfig {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail(`"budgets" must be an object`);
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !knownKeys.includes(key));
  if (unknown !== undefined) fail(`"budgets" has unknown key "${unknown}" (known: ${knownKeys.join(", ")})`);
  const config: BudgetsConfig = {};
  if (record.session !== undefined)
    config.session = budgetAt(record.session, `"budgets.session"`, "total", fail);
  if (record.profiles !== undefined) {
    const profiles = record.profiles;
    if (typeof profiles !== "object" || profiles === null || Array.isArray(profiles)) {
      fail(`"budgets.profiles" must be an object of budgets by profile name`);
    }
    // Null prototype: a profile named "__proto__" stays a plain key.
    const parsed: Record<string, Budget> = Object.create(null);
    for (const [name, budget] of Object.entries(profiles as Record<string, unknown>)) {
      parsed[name] = budgetAt(budget, `"budgets.profiles.${name}"`, "day", fail);
    }
    config.profiles = parsed;
  }
  return config;
}

function budgetAt(
  value: unknown,
  where: string,
  defaultPeriod: Budget["period"],
  fail: (reason: string) => never,
): Budget {
  const problem = budgetProblem(value, defaultPeriod);
  if (problem !== null) fail(`${where}: ${problem}`);
  return budgetOf(value as Record<string, unknown>, defaultPeriod);
}
