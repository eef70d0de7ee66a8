/**
 * Where a compaction cuts a session's context: which items it summarizes and from which log
 * position on it keeps the items verbatim.
 *
 * Boundary rule: pure. A cut lies only between two log entries (so a response's items, its
 * reasoning with its calls, and a batch of results stay together) and never between a tool
 * call and its result, so the kept tail has no call without its result and no result without
 * its call; kept items are never edited, so reasoning signatures and encrypted payloads stay
 * valid. A call that has no result yet is always kept. Preference: the last `keepTurns` turns
 * whole if they fit in `keepTokens`; else fewer whole turns; else the longest tail inside the
 * current turn that fits; else the shortest tail a cut allows.
 */
import { type Item, isUserMessage } from "../model/items.js";
import { estimateItemTokens } from "../model/token-estimate.js";
import { isCompactionSummary } from "./compaction-summary.js";

export interface CompactionPlanInput {
  /** The context as replayed (a previous compaction's summary first, if any). */
  items: readonly Item[];
  /** The log position of each item (`RestoredState.history_positions`). */
  positions: readonly number[];
  /** The position the compaction entry will take (the first kept position when nothing is kept). */
  nextPosition: number;
  /** Whole turns to keep verbatim when they fit. */
  keepTurns: number;
  /** Most estimated tokens the kept items should take. */
  keepTokens: number;
  /** Token estimate of one item (default: the model's rough estimate). */
  estimate?: (item: Item) => number;
}

export interface CompactionPlan {
  /** Log position of the first kept entry (the compaction's own when nothing is kept). */
  firstKeptPosition: number;
  /** Index in `items` where the kept tail starts. */
  keepFrom: number;
  /** What the summary must cover (a previous summary included). */
  summarized: readonly Item[];
  kept: readonly Item[];
  summarizedTokens: number;
  keptTokens: number;
}

/** The cut for a compaction of `input.items`, or null when there is nothing worth summarizing. */
export function planCompaction(input: CompactionPlanInput): CompactionPlan | null {
  const { items, positions } = input;
  const n = items.length;
  const estimate = input.estimate ?? estimateItemTokens;
  const tokens = items.map(estimate);
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + tokens[i]!;
  const safe = safeCuts(items, positions);
  // Summarizing only an earlier summary gains nothing.
  const firstReal = n > 0 && isCompactionSummary(items[0]!) ? 1 : 0;
  const useful = (i: number) => i > firstReal && safe[i] === true;

  const turnStarts: number[] = [];
  for (let i = firstReal; i < n; i++) {
    if (isUserMessage(items[i]!) && !isCompactionSummary(items[i]!)) turnStarts.push(i);
  }
  let cut: number | undefined;
  for (let k = Math.min(input.keepTurns, turnStarts.length); k >= 1 && cut === undefined; k--) {
    const start = turnStarts[turnStarts.length - k]!;
    if (useful(start) && suffix[start]! <= input.keepTokens) cut = start;
  }
  const lastTurn = turnStarts[turnStarts.length - 1];
  // When the current turn fits, only whole turns are kept: a turn is never cut needlessly.
  if (cut === undefined && lastTurn !== undefined && suffix[lastTurn]! <= input.keepTokens) return null;
  if (cut === undefined) {
    for (let i = firstReal + 1; i <= n; i++) {
      if (useful(i) && suffix[i]! <= input.keepTokens) {
        cut = i;
        break;
      }
    }
  }
  if (cut === undefined) {
    for (let i = n; i > firstReal; i--) {
      if (useful(i)) {
        cut = i;
        break;
      }
    }
  }
  if (cut === undefined) return null;
  return {
    firstKeptPosition: cut < n ? positions[cut]! : input.nextPosition,
    keepFrom: cut,
    summarized: items.slice(0, cut),
    kept: items.slice(cut),
    summarizedTokens: suffix[0]! - suffix[cut]!,
    keptTokens: suffix[cut]!,
  };
}

/**
 * `safe[i]`: whether the context may be cut before item `i` (0 < i <= n): between two log
 * entries, with no tool call before the cut whose result comes after it (or never came), and
 * no result after it whose call is not after it too.
 */
export function safeCuts(items: readonly Item[], positions: readonly number[]): boolean[] {
  const n = items.length;
  const callAt = new Map<string, number>();
  const resultAt = new Map<string, number>();
  items.forEach((item, i) => {
    if (item.type === "tool_call") callAt.set(item.call_id, i);
    else if (item.type === "tool_result") resultAt.set(item.call_id, i);
  });
  // blocked[i] > 0: some pair (or a lone call/result) forbids a cut before item i.
  const delta = new Array<number>(n + 2).fill(0);
  const block = (from: number, to: number) => {
    // Cuts before items from..to (inclusive) are forbidden.
    if (from > to) return;
    delta[from]! += 1;
    delta[to + 1]! -= 1;
  };
  for (const [id, call] of callAt) {
    const result = resultAt.get(id);
    if (result === undefined) block(call + 1, n);
    else if (result > call) block(call + 1, result);
    else block(result + 1, n); // a result before its call: keep neither apart
  }
  for (const [id, result] of resultAt) {
    if (!callAt.has(id)) block(1, result); // an orphan result is never kept
  }
  const safe = new Array<boolean>(n + 1).fill(false);
  let running = 0;
  for (let i = 0; i <= n; i++) {
    running += delta[i]!;
    const boundary = i === n || i === 0 || positions[i] !== positions[i - 1];
    safe[i] = i > 0 && boundary && running === 0;
  }
  return safe;
}
