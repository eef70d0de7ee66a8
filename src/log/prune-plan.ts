/**
 * Where retention cuts a log: which leading entries it may drop while the kept ones still
 * replay to exactly the state the whole log replays to.
 *
 * Boundary rule: pure. The cut is at most the last `keep_entries` entries back from the head,
 * and never after the latest compaction's first kept position: replay rebuilds the model's
 * context from that compaction on, so what comes before it is needed only for the state a
 * `pruned` record's `base` carries. A log without a compaction is never cut (all of it is still
 * the model's context). Every plan is checked by replaying the kept entries from the base and
 * comparing with the whole replay; a cut that would change anything is refused.
 */
import { canonicalJson } from "./canonical-json.js";
import { applyEntry, collectState, startStateOf } from "./collect-state.js";
import type { LogEntry, PositionedEntry, PrunePolicy } from "./entries.js";
import { prunedBaseOf } from "./pruned-log.js";
import type { RestoredState } from "./restored-state.js";

/** A cut retention may make: drop positions before `upTo`, then append `entry` (a `pruned` record). */
export interface PrunePlan {
  upTo: number;
  /** Entries and bytes (their canonical JSON) dropped. */
  entries: number;
  bytes: number;
  entry: Extract<LogEntry, { kind: "pruned" }>;
}

/** What retention does with one log: cut it, or keep it whole and why. */
export type PruneDecision = { kind: "prune"; plan: PrunePlan } | { kind: "keep"; reason: string };

/** The state fields the kept entries must replay to unchanged (usage records and past answers are dropped with their entries). */
const comparedFields = [
  "system_prompt",
  "config",
  "history",
  "history_positions",
  "request_count",
  "locked_prefix_len",
  "last_run_interrupted",
  "approval_policy",
  "approval_mode",
  "remembered_rules",
  "pending_approvals",
  "last_compaction",
  "todos",
] as const satisfies ReadonlyArray<keyof RestoredState>;

/** The canonical JSON bytes of an entry (what the SQL stores' `entry` column holds). */
function entryBytes(entry: LogEntry): number {
  return Buffer.byteLength(canonicalJson(entry), "utf8");
}

/** Decide how retention cuts a whole verified log (`entries`, in order) under `policy`, at time `now`. */
export function planPrune(
  entries: readonly PositionedEntry[],
  policy: PrunePolicy,
  now: number,
): PruneDecision {
  const first = entries[0];
  const last = entries[entries.length - 1];
  if (first === undefined || last === undefined) return { kind: "keep", reason: "empty log" };
  const sizes = entries.map((stored) => entryBytes(stored.entry));
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= policy.above_bytes) return { kind: "keep", reason: "not above the size limit" };
  const whole = collectState(entries);
  if (whole.last_compaction === null) return { kind: "keep", reason: "never compacted" };
  const upTo = Math.min(last.position + 1 - policy.keep_entries, whole.last_compaction.first_kept_position);
  if (upTo <= first.position) return { kind: "keep", reason: "nothing before the cut" };
  const atCut = startStateOf(entries);
  let dropped = 0;
  for (const [i, stored] of entries.entries()) {
    if (stored.position >= upTo) break;
    applyEntry(atCut, stored.entry);
    dropped += sizes[i]!;
  }
  const entry: PrunePlan["entry"] = {
    kind: "pruned",
    ts: now,
    up_to: upTo,
    cut_hash: entries[upTo - first.position - 1]!.hash,
    entries: upTo - first.position,
    bytes: dropped,
    policy: { ...policy },
    base: prunedBaseOf(atCut),
  };
  const kept: PositionedEntry[] = [
    ...entries.slice(upTo - first.position),
    { hash: "", prev_hash: last.hash, entry, position: last.position + 1 },
  ];
  const differs = differingField(whole, collectState(kept));
  if (differs !== null) return { kind: "keep", reason: `replay from the cut would change ${differs}` };
  return { kind: "prune", plan: { upTo, entries: entry.entries, bytes: dropped, entry } };
}

function differingField(whole: RestoredState, fromCut: RestoredState): string | null {
  for (const field of comparedFields) {
    if (canonicalJson(whole[field]) !== canonicalJson(fromCut[field])) return field;
  }
  return null;
}
