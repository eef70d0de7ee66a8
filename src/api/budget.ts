/**
 * Budgets as the HTTP API shows them: the body of `PUT /sessions/{id}/budget`, the snapshot's
 * `budget`, and the route's answer.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/budget.ts).
 */
export type { BudgetBody, BudgetView, SessionBudgetAnswer } from "./schemas/budget.js";
