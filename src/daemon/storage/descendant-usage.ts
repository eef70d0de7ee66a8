/**
 * The usage of the child sessions a session's `task` calls started, and of theirs, recursively
 * (a fork is no child: its usage is its own), summed per provider profile and model, so that
 * each part can be priced at its own model's prices.
 */
import type { SessionUsage } from "../../api/session-snapshot.js";
import { all, type SqlProgram } from "./sql-program.js";

/** The summed usage of the descendants that ran with one profile and model. */
export interface DescendantUsage {
  /** The profile the descendants name (null: the default profile). */
  providerProfile: string | null;
  /** The model they name (null: their profile's). */
  model: string | null;
  usage: SessionUsage;
}

type Summed = Record<keyof SessionUsage, number | string | null> & {
  provider_profile: string | null;
  model: string | null;
};

/** The descendants' usage of `sessionId`, one row per profile and model, in no order (none without descendants). */
export function* descendantUsageProgram(sessionId: string): SqlProgram<DescendantUsage[]> {
  const rows = yield* all<Summed>(
    `WITH RECURSIVE tree(id) AS (
       SELECT id FROM sessions WHERE parent_id = ? AND parent_call_id IS NOT NULL
       UNION ALL
       SELECT s.id FROM sessions s JOIN tree t ON s.parent_id = t.id WHERE s.parent_call_id IS NOT NULL
     )
     SELECT provider_profile, model,
       SUM(usage_prompt_tokens) AS prompt_tokens, SUM(usage_completion_tokens) AS completion_tokens,
       SUM(usage_cached_prompt_tokens) AS cached_prompt_tokens, SUM(usage_total_tokens) AS total_tokens
     FROM sessions WHERE id IN (SELECT id FROM tree)
     GROUP BY provider_profile, model`,
    sessionId,
  );
  // PostgreSQL sums BIGINTs as NUMERIC, which its driver gives as text.
  const count = (value: number | string | null): number => Number(value ?? 0);
  return rows.map((row) => ({
    providerProfile: row.provider_profile,
    model: row.model,
    usage: {
      prompt_tokens: count(row.prompt_tokens),
      completion_tokens: count(row.completion_tokens),
      cached_prompt_tokens: count(row.cached_prompt_tokens),
      total_tokens: count(row.total_tokens),
    },
  }));
}
