/**
 * A fork that copies: the entries a new session's log starts with when it branches from a
 * source log, so that it reads like the source up to the fork point (the same positions, the
 * same entry contexts, continuations and bookkeeping included) while its chain is its own.
 *
 * Boundary rule: pure. The copies are the source's entries verbatim, except that the first (the
 * source's session_start) carries the fork point in `forked_from` instead of whatever it had, and
 * the entry at the fork point may keep only its first items.
 */
import { applyEntry, startStateOf } from "./collect-state.js";
import type { LogEntry, PositionedEntry } from "./entries.js";
import { LogCorruptError } from "./errors.js";

/** Where a copying fork cuts its source: after the entry at `position`, keeping its first `keepItems` items (all when absent). */
export interface ForkCut {
  position: number;
  keepItems?: number;
}

/**
 * The source's entries at positions 0..`cut.position`, ready to be chained as a fork's log: the
 * first points back at the source's entry at the cut (`forked_from` with its hash and
 * position), and the entry at the cut keeps only `cut.keepItems` of its items. `source` is the
 * verified log of `sourceId` in position order. A log that does not start with a session_start
 * is a LogCorruptError.
 */
export function copiedForkEntries(
  sourceId: string,
  source: readonly PositionedEntry[],
  cut: ForkCut,
): LogEntry[] {
  const at = source[cut.position];
  if (at === undefined || at.position !== cut.position) {
    throw new RangeError(`session ${sourceId} has no entry at position ${cut.position}`);
  }
  const copies = source.slice(0, cut.position + 1).map((placed) => placed.entry);
  if (cut.keepItems !== undefined)
    copies[cut.position] = keepFirstItems(copies[cut.position]!, cut.keepItems);
  const start = copies[0]!;
  if (start.kind !== "session_start") {
    throw new LogCorruptError(sourceId, 0, `the log starts with a ${start.kind} entry, not a session_start`);
  }
  copies[0] = {
    ...start,
    forked_from: { session_id: sourceId, entry_hash: at.hash, position: cut.position },
  };
  return copies;
}

/**
 * A fork of a pruned log (its first stored entry is not position 0, so there is nothing to copy
 * from the start): one session_start at `now` whose history is the source's replayed state right
 * after `cut` (its first `cut.keepItems` items), pointing back at that entry without a position
 * (the snapshot form), then the source's approval policy and mode when it had its own.
 */
export function snapshotForkEntries(
  sourceId: string,
  source: readonly PositionedEntry[],
  cut: ForkCut,
  now: number,
): LogEntry[] {
  const at = source.find((placed) => placed.position === cut.position);
  if (at === undefined) throw new RangeError(`session ${sourceId} has no entry at position ${cut.position}`);
  const state = startStateOf(source);
  for (const placed of source) {
    if (placed.position > cut.position) break;
    const whole = placed.position < cut.position || cut.keepItems === undefined;
    applyEntry(state, whole ? placed.entry : keepFirstItems(placed.entry, cut.keepItems!));
  }
  const start: LogEntry = {
    kind: "session_start",
    ts: now,
    system_prompt: state.system_prompt,
    config: { ...state.config },
    history: state.history,
    forked_from: { session_id: sourceId, entry_hash: at.hash },
  };
  if (state.approval_policy === null && state.approval_mode === "ask") return [start];
  const policy = state.approval_policy;
  return [start, { kind: "approval_policy_changed", ts: now, policy, mode: state.approval_mode }];
}

/** The entry with only its first `count` items (entries that hold one item or none are unchanged). */
function keepFirstItems(entry: LogEntry, count: number): LogEntry {
  switch (entry.kind) {
    case "session_start":
      return { ...entry, history: entry.history.slice(0, count) };
    case "assistant_items":
    case "tool_results":
    case "hook_injected_items":
      return { ...entry, items: entry.items.slice(0, count) };
    default:
      return entry;
  }
}
