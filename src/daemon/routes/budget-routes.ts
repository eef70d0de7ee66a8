/**
 * `PUT /sessions/{sid}/budget` (a budget: `{"maxTokens"?, "maxCostUsd"?, "period"?}`) sets the
 * session's own budget; `DELETE` removes it (config.json's `budgets.session` applies again, if
 * set). Each is one `budget_changed` log entry, and applies from the session's next model
 * request on: a session a budget stopped goes on with its next input or `continue` once the
 * budget allows it. 200 with the session's own budget and the tightest that applies now; 400
 * `invalid_request` (nothing written) for a budget that is not one.
 *
 * Boundary rule: the route checks the body and asks the actor; the actor logs the change.
 */
import type { BudgetBody, SessionBudgetAnswer } from "../../api/budget.js";
import { BudgetBodySchema, SessionBudgetAnswerSchema } from "../../api/schemas/budget.js";
import type { Budget } from "../../model/budget.js";
import type { SessionActor } from "../actor/session-actor.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { ActorPathParams, actorRoute } from "./actor-route.js";
import { checkedBudget } from "./budget-body.js";
import type { RouteServices } from "./route-services.js";

/** Register the budget routes. */
export function registerBudgetRoutes(app: HttpApp, services: RouteServices): void {
  registerResource(app, "/sessions/:sid/budget", {
    PUT: actorRoute(services.registry, {
      summary: "Set the session's own budget (tokens and/or USD, in total or per UTC day)",
      role: "admin",
      params: ActorPathParams,
      body: BudgetBodySchema,
      answer: [200, SessionBudgetAnswerSchema],
      input: (request) => checkedBudget(request.body as BudgetBody),
      act: (actor, budget) => setAndShow(actor, budget),
    }),
    DELETE: actorRoute(services.registry, {
      summary: "Remove the session's own budget (config.json's default applies again, if set)",
      role: "admin",
      params: ActorPathParams,
      answer: [200, SessionBudgetAnswerSchema],
      act: (actor) => setAndShow(actor, null),
    }),
  });
}

async function setAndShow(actor: SessionActor, budget: Budget | null): Promise<SessionBudgetAnswer> {
  await actor.setBudget(budget);
  const snapshot = await actor.snapshot(1);
  return { session_id: actor.sessionId, own: budget, budget: snapshot.budget };
}
