/**
 * A budget a client sent (`PUT /sessions/{id}/budget`, a schedule's `budget`): the wire schema
 * checked its fields' types; this checks what a schema does not say (at least one limit) and
 * fills in the period (`total`).
 */
import type { BudgetBody } from "../../api/budget.js";
import { type Budget, budgetOf, budgetProblem } from "../../model/budget.js";
import { problem } from "../http/problem.js";

/** `body` as a budget; a 400 `invalid_request` problem naming what is wrong otherwise. */
export function checkedBudget(body: BudgetBody): Budget {
  const refused = budgetProblem(body, "total");
  if (refused !== null) throw problem("invalid_request", refused);
  return budgetOf(body, "total");
}
