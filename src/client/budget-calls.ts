/**
 * The budget routes as client calls (`DaemonClient.budgets`): `PUT`/`DELETE
 * /sessions/{sid}/budget`. The budget in force is the snapshot's `budget` (`getSession`).
 */
import type { BudgetBody, SessionBudgetAnswer } from "../api/budget.js";
import type { CallOptions } from "./client-options.js";

/** One JSON request to the daemon (an error answer throws `DaemonApiError`). */
type JsonCall = <T>(method: string, path: string, options?: CallOptions) => Promise<T>;

export interface BudgetCalls {
  /** `PUT /sessions/{sid}/budget`: the session's own budget. */
  set(sessionId: string, budget: BudgetBody): Promise<SessionBudgetAnswer>;
  /** `DELETE /sessions/{sid}/budget`: none of its own (config.json's default applies, if set). */
  remove(sessionId: string): Promise<SessionBudgetAnswer>;
}

/** The budget calls made through `call`. */
export function budgetCalls(call: JsonCall): BudgetCalls {
  const path = (id: string) => `/sessions/${encodeURIComponent(id)}/budget`;
  return {
    set: (sessionId, budget) => call("PUT", path(sessionId), { body: budget }),
    remove: (sessionId) => call("DELETE", path(sessionId)),
  };
}
