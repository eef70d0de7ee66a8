/**
 * Verified-prefix checkpoints: `(position, hash)` points of a log whose whole prefix was
 * verified (read back and hashed) or written by this process, kept in memory.
 *
 * Why: a hash commits to every entry before it, so a range read back later (each entry hashed,
 * each link checked) whose last hash equals a checkpoint's is exactly the range that was verified,
 * without re-reading the prefix. What is read is always hashed; only the prefix is not re-read.
 *
 * Boundary rule: stateful but pure (no I/O); a checkpoint is recorded only for a position whose
 * prefix is known good. Points are at least `spacing` positions apart, plus the head, so memory
 * stays small (a 10,000-entry log at the default spacing keeps about 40 points) and an anchored
 * read never goes more than about `spacing` positions past what it wants.
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
  /** Points in position order, the head excluded; only ever appended to. */
  readonly #points: LogHead[] = [];
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
