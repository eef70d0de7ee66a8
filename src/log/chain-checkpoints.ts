/**
 * Verified-prefix checkpoints: `(position, hash)` points of a log whose whole prefix was
 * verified (read back and hashed) or written by this process, kept in memory.
 *
 * Why: a hash commits to every entry before it, so a range read back later (each entry hashed,
 * each link checked) whose last hash equals a checkpoint's is exactly the range that was verified,
 * without re-reading the prefix. What is read is always hashed; only the prefix is not re-read.
 *
 * Points are learned later too: a range read back that chains to a known point proves every
 * entry in it, and so does the background check of a prefix a state checkpoint skipped at load.
 * What is learned is kept at the positions `spacing - 1, 2 * spacing - 1, ...` (`pointsOf`), so
 * learning the same range twice adds nothing.
 *
 * Boundary rule: stateful but pure (no I/O); a checkpoint is recorded only for a position whose
 * prefix is known good. Points are about `spacing` positions apart, plus the head, so memory
 * stays small (a 10,000-entry log at the default spacing keeps about 40 points) and an anchored
 * read of a log known whole never goes more than about `spacing` positions past what it wants.
 * A view is a fixed snapshot: appends only add past its count, and learning an earlier point
 * replaces the points array (copy on write) instead of changing the one views hold.
 */
import type { LogHead } from "./store.js";

/** Default distance between kept points. */
const defaultCheckpointSpacing = 256;

/** A fixed view of the checkpoints at one moment (later appends do not change it). */
export interface CheckpointView {
  /** The verified head then; null for an empty log. */
  readonly head: LogHead | null;
  /** The nearest point at or after `position` (the head at the latest); null past the head. */
  anchorFor(position: number): LogHead | null;
}

export class ChainCheckpoints {
  readonly #spacing: number;
  /** Points in position order, the head excluded; appended to, or replaced whole when a point is learned. */
  #points: LogHead[] = [];
  #head: LogHead | null = null;

  constructor(spacing = defaultCheckpointSpacing) {
    if (!Number.isSafeInteger(spacing) || spacing < 1)
      throw new RangeError(`invalid checkpoint spacing ${spacing}`);
    this.#spacing = spacing;
  }

  /**
   * Checkpoints of a log whose entries (`position`, `hash`, in order) were just verified: from
   * position 0, or from a later first entry that is itself a trusted point (a pruned log's cut,
   * a signed state checkpoint's entry), which is then kept as the anchor of everything before it.
   */
  static ofVerified(
    entries: ReadonlyArray<{ position: number; hash: string }>,
    spacing = defaultCheckpointSpacing,
  ): ChainCheckpoints {
    const checkpoints = new ChainCheckpoints(spacing);
    const first = entries[0];
    if (first !== undefined && first.position > 0 && entries.length > 1) {
      checkpoints.#points.push({ position: first.position, hash: first.hash });
    }
    for (let i = spacing - 1; i < entries.length - 1; i += spacing) {
      const { position, hash } = entries[i]!;
      checkpoints.#points.push({ position, hash });
    }
    const last = entries[entries.length - 1];
    if (last !== undefined) checkpoints.#head = { position: last.position, hash: last.hash };
    return checkpoints;
  }

  /** The verified head; null for an empty log. */
  get head(): LogHead | null {
    return this.#head;
  }

  /** How many points are kept (the head excluded). */
  get size(): number {
    return this.#points.length;
  }

  /** The log now ends at `head` (this process appended up to it). */
  advance(head: LogHead): void {
    const previous = this.#head;
    if (previous !== null && head.position <= previous.position) {
      throw new RangeError(`the head moves forward only: ${head.position} after ${previous.position}`);
    }
    if (previous !== null) {
      const lastKept = this.#points[this.#points.length - 1]?.position ?? -1;
      if (previous.position - lastKept >= this.#spacing) this.#points.push(previous);
    }
    this.#head = { position: head.position, hash: head.hash };
  }

  /** Of a run of verified entries, the ones kept as points when learned (every `spacing`-th position). */
  pointsOf(entries: ReadonlyArray<{ position: number; hash: string }>): LogHead[] {
    const spacing = this.#spacing;
    const points: LogHead[] = [];
    for (const { position, hash } of entries) {
      if ((position + 1) % spacing === 0) points.push({ position, hash });
    }
    return points;
  }

  /**
   * Keep `points`, each verified (its hash chains to a known point, or a checked prefix ends in
   * it): those before the head not kept yet. A position already kept keeps its point (a verified
   * log has one hash per position). Views taken before do not change.
   */
  learn(points: readonly LogHead[]): void {
    const head = this.#head;
    const kept = this.#points;
    const known = new Set(kept.map((point) => point.position));
    const added: LogHead[] = [];
    for (const { position, hash } of points) {
      if (head === null || position >= head.position || known.has(position)) continue;
      known.add(position);
      added.push({ position, hash });
    }
    if (added.length === 0) return;
    this.#points = mergedByPosition(kept, added);
  }

  /** The checkpoints as they are now. */
  view(): CheckpointView {
    const points = this.#points;
    const count = points.length;
    const head = this.#head;
    return {
      head,
      anchorFor(position) {
        if (head === null || position > head.position) return null;
        // The first point at or after `position`: binary search over the points kept then.
        let low = 0;
        let high = count;
        while (low < high) {
          const middle = (low + high) >>> 1;
          if (points[middle]!.position < position) low = middle + 1;
          else high = middle;
        }
        return low < count ? points[low]! : head;
      },
    };
  }
}

/** `kept` (in position order) and `added` (any order, no position in `kept`) in one new array in position order. */
function mergedByPosition(kept: readonly LogHead[], added: LogHead[]): LogHead[] {
  added.sort((a, b) => a.position - b.position);
  const merged: LogHead[] = [];
  let i = 0;
  let j = 0;
  while (i < kept.length || j < added.length) {
    const next = j >= added.length || (i < kept.length && kept[i]!.position < added[j]!.position);
    merged.push(next ? kept[i++]! : added[j++]!);
  }
  return merged;
}
