/**
 * Checking an append before a store writes it: the entries must be hashed correctly and chain
 * to each other, so a store never persists a record that would read back as corrupt.
 *
 * Boundary rule: validation only; the compare against the stored head is the store's job.
 */

import type { HashedEntry } from "./entries.js";
import { canonicalTextOf, hashCanonicalText, InvalidEntryHashError } from "./entry-hash.js";
import { InvalidAppendError } from "./errors.js";
import { entryShapeProblem } from "./stored-entry.js";

/** An entry ready to store: the entry and the exact canonical text its hash covers. */
export interface PreparedEntry {
  hashed: HashedEntry;
  /** Canonical JSON of `hashed.entry`; what the store writes. */
  text: string;
}

/** Validate `entries` as one append and pair each with the canonical text to write. */
export function prepareAppend(sessionId: string, entries: readonly HashedEntry[]): PreparedEntry[] {
  if (entries.length === 0) throw new InvalidAppendError(sessionId, -1, "an append needs at least one entry");
  const prepared: PreparedEntry[] = [];
  let prev = entries[0]!.prev_hash;
  for (let i = 0; i < entries.length; i++) {
    const hashed = entries[i]!;
    if (hashed.prev_hash !== prev) {
      throw new InvalidAppendError(sessionId, i, `prev_hash ${hashed.prev_hash} does not chain to ${prev}`);
    }
    const problem = entryShapeProblem(hashed.entry);
    if (problem !== null) throw new InvalidAppendError(sessionId, i, problem);
    let text: string;
    let computed: string;
    try {
      text = canonicalTextOf(hashed);
      computed = hashCanonicalText(prev, text);
    } catch (error) {
      const reason =
        error instanceof InvalidEntryHashError ? `prev_hash: ${error.message}` : (error as Error).message;
      throw new InvalidAppendError(sessionId, i, reason);
    }
    if (computed !== hashed.hash) {
      throw new InvalidAppendError(sessionId, i, `hash ${hashed.hash} is not the entry's hash ${computed}`);
    }
    prepared.push({ hashed, text });
    prev = hashed.hash;
  }
  return prepared;
}
