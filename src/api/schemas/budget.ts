/**
 * Budgets on the wire: the body of `PUT /sessions/{id}/budget` (and a schedule's `budget`),
 * the snapshot's `budget` (the tightest budget that applies to the session, with what it has
 * used), and the answer of `PUT`/`DELETE /sessions/{id}/budget`.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. That a
 * budget sets at least one limit is checked by the route (model/budget.ts's `budgetProblem`).
 */
import { type Static, Type } from "typebox";
import { maxBudgetCostUsd, maxBudgetTokens } from "../../model/budget.js";
import { closedObject, literalUnion, namedObject, Time } from "./parts.js";

const BudgetPeriodSchema = literalUnion("total", "day");

/** A budget as a client writes it (config.json's shape): `period` defaults to `total`. */
export const BudgetBodySchema = namedObject("Budget", {
  maxTokens: Type.Optional(Type.Integer({ minimum: 0, maximum: maxBudgetTokens })),
  maxCostUsd: Type.Optional(Type.Number({ minimum: 0, maximum: maxBudgetCostUsd })),
  period: Type.Optional(BudgetPeriodSchema),
});
export type BudgetBody = Static<typeof BudgetBodySchema>;

const Tokens = Type.Integer({ minimum: 0 });
const Usd = Type.Number({ minimum: 0 });

/** The budget a snapshot shows: which one, its limits, what was used and what is left, when it starts again. */
export const BudgetViewSchema = namedObject("BudgetView", {
  /** Whose budget: the session's own (or config.json's `budgets.session`), its profile's, its schedule's. */
  scope: literalUnion("session", "profile", "schedule"),
  period: BudgetPeriodSchema,
  limit: closedObject({
    max_tokens: Type.Union([Tokens, Type.Null()]),
    max_cost_usd: Type.Union([Usd, Type.Null()]),
  }),
  used: closedObject({ tokens: Tokens, cost_usd: Usd }),
  /** max(0, limit - used) per limit (null where the budget sets none). */
  remaining: closedObject({
    tokens: Type.Union([Tokens, Type.Null()]),
    cost_usd: Type.Union([Usd, Type.Null()]),
  }),
  /** When the count starts again (the next UTC midnight for `day`); null for `total`. */
  period_end: Type.Union([Time, Type.Null()]),
  /** Nothing is left: the session's next model request is refused (outcome `budget_exhausted`). */
  exhausted: Type.Boolean(),
});
export type BudgetView = Static<typeof BudgetViewSchema>;

/** The answer of `PUT` and `DELETE /sessions/{id}/budget`: the session's own budget now, and the tightest that applies. */
export const SessionBudgetAnswerSchema = namedObject("SessionBudgetAnswer", {
  session_id: Type.String(),
  /** The session's own budget (null: none; config.json's `budgets.session` applies, if set). */
  own: Type.Union([BudgetBodySchema, Type.Null()]),
  budget: Type.Union([BudgetViewSchema, Type.Null()]),
});
export type SessionBudgetAnswer = Static<typeof SessionBudgetAnswerSchema>;
