/**
 * The `budget_usage` table: what model requests used, added up per session, UTC day, provider
 * profile and schedule, so a budget's check reads one indexed sum however many sessions and
 * requests it spans (daemon/budget/). Each row is derived from the log: a model answer's
 * `assistant_items` entry carries its request's usage (a `compaction` entry, its summary
 * requests' usage), and `recordUsageProgram` adds it here in
 * the same transaction that appends the entry, so the table and the log never disagree, a crash
 * included.
 *
 * Boundary rule: SQL programs (sql-program.ts) for either backend. Rows are keyed by
 * `session_id`, not `session`, on purpose: deleting a session removes the rows with a `session`
 * column, and what a deleted session spent still counts toward its profile's day. Copied entries
 * (a fork's) are never recorded: only the session that made a request pays for it.
 */
import type { LogEntry, RequestUsage } from "../../log/entries.js";
import { unreachable } from "../../model/unreachable.js";
import { all, get, run, type SqlProgram } from "./sql-program.js";

/** Milliseconds in a UTC day (days are counted from the Unix epoch). */
export const dayMs = 86_400_000;

/** Cost is stored in whole nano-dollars, so sums are exact integers in both backends. */
const nanosPerUsd = 1_000_000_000;

/** The UTC day (days since 1970-01-01) that `ms` falls in. */
export function utcDayOf(ms: number): number {
  return Math.floor(ms / dayMs);
}

/** The tokens a request counts toward a budget: its whole prompt (cached included) and its output. */
export function budgetTokensOf(usage: RequestUsage): number {
  return usage.input_tokens + usage.output_tokens;
}

/** A request's cost in nano-dollars (0 where its prices were not known). */
export function costNanosOf(usage: RequestUsage): number {
  return usage.cost_usd === undefined ? 0 : Math.round(usage.cost_usd * nanosPerUsd);
}

/** What a scope used: tokens and cost (USD). */
export interface UsageTotals {
  tokens: number;
  costUsd: number;
}

/**
 * Whose usage a budget counts: one session's (with its `task` children's), one profile's (all its
 * sessions), one schedule's (its firings' turns).
 */
export type UsageScope =
  | { kind: "session"; sessionId: string }
  | { kind: "profile"; profile: string }
  | { kind: "schedule"; scheduleId: string };

/** Add the usage of every model answer and compaction among `entries` (appended to `sessionId`'s log now). */
export function* recordUsageProgram(sessionId: string, entries: readonly LogEntry[]): SqlProgram<void> {
  for (const entry of entries) {
    if (entry.kind !== "assistant_items" && entry.kind !== "compaction") continue;
    const { usage } = entry;
    if (usage === undefined) continue;
    yield* run(
      `INSERT INTO budget_usage (session_id, day, profile, schedule, tokens, cost_nanos, requests)
       VALUES (?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (session_id, day, profile, schedule) DO UPDATE SET
         tokens = budget_usage.tokens + excluded.tokens,
         cost_nanos = budget_usage.cost_nanos + excluded.cost_nanos,
         requests = budget_usage.requests + 1`,
      sessionId,
      utcDayOf(entry.ts),
      usage.profile,
      usage.schedule ?? "",
      budgetTokensOf(usage),
      costNanosOf(usage),
    );
  }
}

/**
 * A session and the `task` children its calls started, and theirs, recursively (a fork is no
 * child: it pays for itself): whose usage the session's budget counts, since a child's requests
 * are made for its parent's turn.
 */
function* sessionAndTaskChildrenProgram(sessionId: string): SqlProgram<string[]> {
  const rows = yield* all<{ id: string }>(
    `WITH RECURSIVE tree(id) AS (
       SELECT id FROM sessions WHERE parent_id = ? AND parent_call_id IS NOT NULL
       UNION ALL
       SELECT s.id FROM sessions s JOIN tree t ON s.parent_id = t.id WHERE s.parent_call_id IS NOT NULL
     )
     SELECT id FROM tree`,
    sessionId,
  );
  return [sessionId, ...rows.map((row) => row.id)];
}

/** What `scope` used from UTC day `fromDay` on (null: ever); a session's includes its `task` children's. */
export function* usageTotalsProgram(scope: UsageScope, fromDay: number | null): SqlProgram<UsageTotals> {
  // Two reads, not one join: each then goes through its index (a session's rows by the key).
  const [column, values] =
    scope.kind === "session"
      ? ["session_id", yield* sessionAndTaskChildrenProgram(scope.sessionId)]
      : [scope.kind, [scopeValue(scope)]];
  const key = values.length === 1 ? `${column} = ?` : `${column} IN (${values.map(() => "?").join(", ")})`;
  // The schedules' index holds only rows of a schedule: the plan may use it when the query says so.
  const match = scope.kind === "schedule" ? `${key} AND schedule <> ''` : key;
  const sums = `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost_nanos), 0) AS cost_nanos FROM budget_usage WHERE ${match}`;
  const row =
    fromDay === null
      ? yield* get<{ tokens: number | string; cost_nanos: number | string }>(sums, ...values)
      : yield* get<{ tokens: number | string; cost_nanos: number | string }>(
          `${sums} AND day >= ?`,
          ...values,
          fromDay,
        );
  // PostgreSQL answers a BIGINT sum as a numeric string.
  return { tokens: Number(row?.tokens ?? 0), costUsd: Number(row?.cost_nanos ?? 0) / nanosPerUsd };
}

function scopeValue(scope: UsageScope): string {
  switch (scope.kind) {
    case "session":
      return scope.sessionId;
    case "profile":
      return scope.profile;
    case "schedule":
      return scope.scheduleId;
    default:
      return unreachable(scope, "unknown usage scope");
  }
}
