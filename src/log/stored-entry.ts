/**
 * Turning stored text back into a log entry, with the shape checks a reader needs before it
 * trusts a record enough to hash it.
 *
 * Boundary rule: shallow structural checks only (an object with a known `kind` and a numeric
 * `ts`); the hash chain, not field-by-field validation, is what proves an entry unchanged.
 */
import type { HashedEntry, LogEntry, LogEntryKind } from "./entries.js";
import { LogCorruptError } from "./errors.js";

const entryKinds: Record<LogEntryKind, true> = {
  session_start: true,
  user_input: true,
  assistant_items: true,
  tool_results: true,
  hook_injected_items: true,
  note: true,
  continuation: true,
  turn_end: true,
  run_outcome: true,
  config_changed: true,
  locked: true,
  cache_unlocked: true,
  llm_usage: true,
  approval_policy_changed: true,
  approval_requested: true,
  approval_resolved: true,
  compaction: true,
  context_excluded: true,
  pruned: true,
  budget_changed: true,
};

/** Why `value` is not shaped like a log entry, or null when it is. */
export function entryShapeProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "entry is not an object";
  const { kind, ts } = value as { kind?: unknown; ts?: unknown };
  if (typeof kind !== "string") return "entry has no kind";
  if (!Object.hasOwn(entryKinds, kind)) return `unknown entry kind ${JSON.stringify(kind)}`;
  if (typeof ts !== "number") return "entry has no numeric ts";
  return null;
}

/** Parse the JSON text of a stored entry; an unreadable one is corruption at `position`. */
export function parseStoredEntry(sessionId: string, position: number, text: string): LogEntry {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LogCorruptError(sessionId, position, `unparseable record: ${(error as Error).message}`);
  }
  const problem = entryShapeProblem(value);
  if (problem !== null) throw new LogCorruptError(sessionId, position, `unparseable record: ${problem}`);
  return value as LogEntry;
}

/** Check that a parsed value is a `{hash, prev_hash, entry}` record; corruption at `position` otherwise. */
export function checkHashedEntryShape(sessionId: string, position: number, value: unknown): HashedEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LogCorruptError(sessionId, position, "unparseable record: not a JSON object");
  }
  const record = value as { hash?: unknown; prev_hash?: unknown; entry?: unknown };
  if (typeof record.hash !== "string") {
    throw new LogCorruptError(sessionId, position, "unparseable record: no hash");
  }
  if (record.prev_hash !== null && typeof record.prev_hash !== "string") {
    throw new LogCorruptError(sessionId, position, "unparseable record: no prev_hash");
  }
  const problem = entryShapeProblem(record.entry);
  if (problem !== null) throw new LogCorruptError(sessionId, position, `unparseable record: ${problem}`);
  return value as HashedEntry;
}
