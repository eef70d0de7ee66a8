/**
 * Pruned logs: a log whose entries before some position P were removed by retention. Its first
 * stored entry is P, and it verifies only when its latest `pruned` record (an entry of the chain
 * after the cut, so covered by every later hash and by the signed head) names exactly that cut:
 * `up_to` = P and `cut_hash` = the prev_hash of entry P. A prefix missing without such a record
 * is corruption, as it always was.
 *
 * Boundary rule: pure. Stores call `checkPrunedStart` on a whole log they verified; a range read
 * calls `pruneCutOf` on the latest record to know where the stored log starts.
 */

import type { LogEntry, PositionedEntry, PrunedBase } from "./entries.js";
import { isEntryHash } from "./entry-hash.js";
import { LogCorruptError } from "./errors.js";
import type { RestoredState } from "./restored-state.js";

/** Where a pruned log starts: the first kept position and the hash of the entry before it. */
export interface PruneCut {
  upTo: number;
  cutHash: string;
}

/** The cut a `pruned` entry names, or null for any other entry. */
export function pruneCutOf(entry: LogEntry): PruneCut | null {
  if (entry.kind !== "pruned") return null;
  return { upTo: entry.up_to, cutHash: entry.cut_hash };
}

/**
 * Accept where a verified log starts: at position 0, or at P > 0 when its latest `pruned` record
 * names the cut at P with the hash the entry at P links to. Throws `LogCorruptError` otherwise.
 */
export function checkPrunedStart(sessionId: string, entries: readonly PositionedEntry[]): void {
  const first = entries[0];
  if (first === undefined || first.position === 0) return;
  const missing = `entries 0..${first.position - 1} are missing`;
  const latest = latestPruned(entries);
  if (latest === null) {
    throw new LogCorruptError(
      sessionId,
      first.position - 1,
      `${missing} and no pruned record names that cut`,
    );
  }
  const cut = pruneCutOf(latest.entry)!;
  if (cut.upTo > latest.position) {
    throw new LogCorruptError(
      sessionId,
      latest.position,
      `the pruned record names a cut (${cut.upTo}) after itself`,
    );
  }
  if (cut.upTo !== first.position) {
    throw new LogCorruptError(
      sessionId,
      first.position - 1,
      `${missing} but the latest pruned record (position ${latest.position}) names a cut at ${cut.upTo}`,
    );
  }
  if (!isEntryHash(cut.cutHash) || cut.cutHash !== first.prev_hash) {
    throw new LogCorruptError(
      sessionId,
      first.position,
      `the first kept entry links to ${String(first.prev_hash)} but the pruned record names ${cut.cutHash}`,
    );
  }
}

/** The latest `pruned` entry of `entries`, or null. */
function latestPruned(entries: readonly PositionedEntry[]): PositionedEntry | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i]!.entry.kind === "pruned") return entries[i]!;
  }
  return null;
}

/** What a `pruned` record keeps of the replayed state at the cut (see `PrunedBase`). */
export function prunedBaseOf(state: Readonly<RestoredState>): PrunedBase {
  return {
    system_prompt: state.system_prompt,
    config: { ...state.config },
    request_count: state.request_count,
    locked_prefix_len: state.locked_prefix_len,
    last_run_interrupted: state.last_run_interrupted,
    approval_policy: state.approval_policy === null ? null : structuredClone(state.approval_policy),
    approval_mode: state.approval_mode,
    remembered_rules: state.remembered_rules.map((rule) => ({ ...rule })),
    todos: state.todos.map((todo) => ({ ...todo })),
    ...(state.budget === null ? {} : { budget: { ...state.budget } }),
  };
}
