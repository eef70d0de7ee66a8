/**
 * The hash chain: `hash = SHA-256(prev hash bytes, or 32 zero bytes || UTF-8 canonicalJson(entry))`,
 * written as 64 lowercase hex digits.
 *
 * Boundary rule: pure functions over entries; no I/O. The canonical text computed while
 * hashing is remembered per `HashedEntry` object so a store can write exactly the bytes that
 * were hashed without canonicalizing the entry a second time.
 */
import { createHash, hash as oneShotHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";
import type { HashedEntry, LogEntry } from "./entries.js";

const ZERO_HASH = Buffer.alloc(32);
const ENTRY_HASH = /^[0-9a-f]{64}$/;

/** Canonical text of entries hashed in this process, keyed by the HashedEntry that carries them. */
const canonicalTexts = new WeakMap<HashedEntry, string>();

/** A string that is not an entry hash (64 lowercase hex digits) where one was required. */
export class InvalidEntryHashError extends Error {
  constructor(readonly value: unknown) {
    super(`not an entry hash (64 lowercase hex digits): ${JSON.stringify(String(value)).slice(0, 80)}`);
    this.name = "InvalidEntryHashError";
  }
}

/** True when `value` is 64 lowercase hex digits. */
export function isEntryHash(value: unknown): value is string {
  return typeof value === "string" && value.length === 64 && ENTRY_HASH.test(value);
}

/** The hash of `entry` chained after `prevHash` (null: the first entry of a log). */
export function computeHash(prevHash: string | null, entry: LogEntry): string {
  return hashCanonicalText(prevHash, canonicalJson(entry));
}

/** The chain hash over an entry's canonical JSON, given as text or as its UTF-8 bytes. */
export function hashCanonicalText(prevHash: string | null, canonicalText: string | Uint8Array): string {
  if (prevHash !== null && !isEntryHash(prevHash)) throw new InvalidEntryHashError(prevHash);
  return hashAfterValidPrev(prevHash, canonicalText);
}

/**
 * `hashCanonicalText` for a `prevHash` already known to be a valid entry hash (the verified
 * hash of the entry before): verification calls this once per stored entry, so it skips the
 * format check and hashes through one reused buffer in a single call.
 */
export function hashAfterValidPrev(prevHash: string | null, canonicalText: string | Uint8Array): string {
  const maxBytes = typeof canonicalText === "string" ? canonicalText.length * 3 : canonicalText.byteLength;
  if (maxBytes > SCRATCH_LIMIT) return hashStreaming(prevHash, canonicalText);
  if (32 + maxBytes > scratch.length)
    scratch = Buffer.allocUnsafe(Math.min(2 * (32 + maxBytes), SCRATCH_LIMIT + 32));
  if (prevHash === null) scratch.fill(0, 0, 32);
  else scratch.write(prevHash, 0, 32, "hex");
  let length: number;
  if (typeof canonicalText === "string") {
    length = scratch.write(canonicalText, 32, "utf8");
  } else {
    scratch.set(canonicalText, 32);
    length = canonicalText.byteLength;
  }
  // A plain view costs less than Buffer#subarray (no Buffer subclass construction); this runs
  // once per entry read.
  return oneShotHash("sha256", new Uint8Array(scratch.buffer, scratch.byteOffset, 32 + length), "hex");
}

/** Entries larger than this are hashed in a stream rather than copied into the reused buffer. */
const SCRATCH_LIMIT = 1 << 20;
let scratch = Buffer.allocUnsafe(16 * 1024);

function hashStreaming(prevHash: string | null, canonicalText: string | Uint8Array): string {
  const hash = createHash("sha256");
  hash.update(prevHash === null ? ZERO_HASH : Buffer.from(prevHash, "hex"));
  hash.update(canonicalText);
  return hash.digest("hex");
}

/** `entry` with its hash, chained after `prevHash`. */
export function hashEntry(prevHash: string | null, entry: LogEntry): HashedEntry {
  const text = canonicalJson(entry);
  const hashed: HashedEntry = { hash: hashCanonicalText(prevHash, text), prev_hash: prevHash, entry };
  canonicalTexts.set(hashed, text);
  return hashed;
}

/** Hash `entries` into a chain that starts after `prevHash`. */
export function buildChain(prevHash: string | null, entries: readonly LogEntry[]): HashedEntry[] {
  const chain: HashedEntry[] = [];
  let prev = prevHash;
  for (const entry of entries) {
    const hashed = hashEntry(prev, entry);
    chain.push(hashed);
    prev = hashed.hash;
  }
  return chain;
}

/**
 * The canonical JSON of a hashed entry's `entry`: remembered from `hashEntry` when this object
 * came from it, computed otherwise.
 */
export function canonicalTextOf(hashed: HashedEntry): string {
  return canonicalTexts.get(hashed) ?? canonicalJson(hashed.entry);
}
