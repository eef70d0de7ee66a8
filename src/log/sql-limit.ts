/**
 * A LIMIT written into a statement's text instead of bound. SQLite's planner reads the value
 * bound to `LIMIT ?` (3.53), which marks the statement to be prepared again whenever it is bound:
 * better-sqlite3 binds on every run, so such a statement was parsed and planned anew each time
 * (the scheduler's due schedules, once a second on an idle daemon; every page of a paged log
 * read). A literal costs one cached statement per distinct limit, and callers pass constants.
 *
 * Boundary rule: text only; the value is checked, never a string from outside.
 */

/** `LIMIT <n>` for a non-negative safe integer `n`; throws a RangeError for anything else. */
export function limitClause(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new RangeError(`a LIMIT must be a non-negative integer, not ${n}`);
  return `LIMIT ${n}`;
}
