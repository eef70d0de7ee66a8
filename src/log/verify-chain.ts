/**
 * Chain verification: every hash recomputed, every prev_hash checked against the entry before.
 *
 * Boundary rule: pure; the first bad entry is reported as `LogCorruptError(session, position,
 * reason)` and nothing is ever repaired. Stores call `verifyEntry` while they read so that a
 * record they cannot even parse is reported in position order with the rest.
 */
import { canonicalJson } from "./canonical-json.js";
import type { HashedEntry } from "./entries.js";
import { hashAfterValidPrev, isEntryHash } from "./entry-hash.js";
import { LogCorruptError } from "./errors.js";

/** Where a run of entries sits in its log: its first position and the hash it must chain to. */
export interface ChainStart {
  position: number;
  /** Hash of the entry before the run; null only at position 0. */
  prevHash: string | null;
}

/** The start of a whole log. */
export const logStart: ChainStart = { position: 0, prevHash: null };

/**
 * Verify one stored entry at `position` that must follow `expectedPrevHash` (null, or a valid
 * hash: the previous verified entry's or a checked predecessor's). When the store
 * kept the exact canonical bytes it wrote (`storedText`), those bytes are hashed, so even a
 * change that keeps the JSON meaning (an escape spelled differently) is detected.
 */
export function verifyEntry(
  sessionId: string,
  position: number,
  expectedPrevHash: string | null,
  stored: HashedEntry,
  storedText?: string | Uint8Array,
): void {
  if (stored.prev_hash !== expectedPrevHash) {
    throw new LogCorruptError(sessionId, position, linkProblem(position, expectedPrevHash, stored.prev_hash));
  }
  let computed: string;
  try {
    // expectedPrevHash is the previous verified entry's hash (or a checked predecessor hash).
    computed = hashAfterValidPrev(expectedPrevHash, storedText ?? canonicalJson(stored.entry));
  } catch (error) {
    throw new LogCorruptError(sessionId, position, `entry cannot be hashed: ${(error as Error).message}`);
  }
  // The computed hash is 64 lowercase hex digits, so equality also proves the stored one well-formed.
  if (computed !== stored.hash) {
    const reason = isEntryHash(stored.hash)
      ? `hash mismatch: stored ${stored.hash}, computed ${computed} (the entry was changed)`
      : "hash is not 64 lowercase hex digits";
    throw new LogCorruptError(sessionId, position, reason);
  }
}

/** Verify a run of entries that starts at `start`; throws for the first bad one. */
export function verifyChain(
  sessionId: string,
  entries: readonly HashedEntry[],
  start: ChainStart = logStart,
): void {
  if (start.prevHash !== null && !isEntryHash(start.prevHash)) {
    throw new LogCorruptError(sessionId, start.position - 1, "hash is not 64 lowercase hex digits");
  }
  let prev = start.prevHash;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    verifyEntry(sessionId, start.position + i, prev, entry);
    prev = entry.hash;
  }
}

function linkProblem(position: number, expected: string | null, actual: string | null): string {
  if (expected === null)
    return `the entry at position ${position} must start the chain but has prev_hash ${actual}`;
  if (actual === null) return "prev_hash is null but the entry does not start the log";
  return `prev_hash ${actual} does not match the previous entry's hash ${expected} (an entry is missing, reordered or was changed)`;
}
