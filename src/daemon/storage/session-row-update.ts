/**
 * The UPDATE of a session's row that applies whatever a commit changes of it (usage, preview,
 * activity time, provider) in one statement, and its SET clauses for statements that change the
 * row along with something else (an admission's input order).
 *
 * Boundary rule: the `sessions` table's changes only; its rows and other statements are
 * sessions-table.ts's.
 */
import type { SessionPreview } from "../../api/session-snapshot.js";
import type { Budget } from "../../model/budget.js";
import type { Usage } from "../../model/usage.js";
import { run, type SqlProgram, type SqlValue } from "./sql-program.js";

/** What one UPDATE of a session's row changes (a field left out stays as it is). */
export interface SessionRowChanges {
  /** One request's usage, added to the totals (see `updateUsageProgram`). */
  usage?: Usage;
  preview?: SessionPreview;
  /** Moves the activity time forward to this (never backwards). */
  activityAt?: number;
  provider?: { providerProfile: string | null; model: string | null };
  /** The session's own budget (null: none), as its log's latest `budget_changed` says. */
  ownBudget?: Budget | null;
}

/**
 * Apply `changes` to the session's row in one UPDATE (a commit that changes several of them
 * pays one statement, not one each); false if there is no such session or nothing to change.
 */
export function* updateSessionRowProgram(sessionId: string, changes: SessionRowChanges): SqlProgram<boolean> {
  const { sets, params } = sessionRowSets(changes);
  if (sets.length === 0) return false;
  const changed = yield* run(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`, ...params, sessionId);
  return changed.changes > 0;
}

/**
 * The SET clauses (and their parameters, in order) of an UPDATE of the sessions table that
 * applies `changes`: for statements that change the row along with something else (the input
 * order counter of an admission).
 */
export function sessionRowSets(changes: SessionRowChanges): { sets: string[]; params: SqlValue[] } {
  const sets: string[] = [];
  const params: SqlValue[] = [];
  const { usage, preview, activityAt, provider, ownBudget } = changes;
  if (usage !== undefined) {
    const prompt = usage.input_tokens ?? 0;
    const completion = usage.output_tokens ?? 0;
    sets.push(
      "usage_prompt_tokens = usage_prompt_tokens + ?",
      "usage_completion_tokens = usage_completion_tokens + ?",
      "usage_cached_prompt_tokens = usage_cached_prompt_tokens + ?",
      "usage_total_tokens = usage_total_tokens + ?",
    );
    params.push(prompt, completion, usage.cache_read_tokens ?? 0, usage.total_tokens ?? prompt + completion);
  }
  if (preview !== undefined) {
    sets.push("preview_text = ?", "preview_truncated = ?", "transcript_count = ?");
    params.push(preview.text, preview.truncated ? 1 : 0, preview.transcript_count);
  }
  if (ownBudget !== undefined) {
    sets.push("own_budget = ?");
    params.push(ownBudget === null ? null : JSON.stringify(ownBudget));
  }
  if (activityAt !== undefined) {
    sets.push("activity_at = CASE WHEN activity_at < ? THEN ? ELSE activity_at END");
    params.push(activityAt, activityAt);
  }
  if (provider !== undefined) {
    sets.push("provider_profile = ?", "model = ?");
    params.push(provider.providerProfile, provider.model);
  }
  return { sets, params };
}
