/**
 * The contract every session-log store must meet, as one reusable suite. A backend's test file
 * calls `describeStoreContract` with a factory for fresh, isolated storage.
 */
import fc from "fast-check";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import { collectState } from "../../src/log/collect-state.js";
import type { HashedEntry, LogEntry } from "../../src/log/entries.js";
import { buildChain, hashEntry } from "../../src/log/entry-hash.js";
import {
  AppendConflictError,
  InvalidAppendError,
  LogCorruptError,
  SessionNotFoundError,
} from "../../src/log/errors.js";
import { type HeadSignature, HeadSigner } from "../../src/log/head-signer.js";
import type { LogHead, Store } from "../../src/log/store.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import { rejectionOf } from "../support/rejection.js";
import { logArbitrary } from "./arbitraries.js";
import { harnessForEachTest } from "./store-harness.js";

/** Fresh storage for one test, with the hooks the contract needs to reach behind the store. */
export interface StoreHarness {
  store: Store;
  /** A second, independent store instance on the same storage (same dir / file / database). */
  openAnother: () => Promise<Store>;
  /** Change the stored form of the entry at `position` (bypassing the store) so its content differs. */
  corruptEntry: (sessionId: string, position: number) => Promise<void>;
  /** Remove every stored entry at `keep` and after (bypassing the store; its recorded head stays). */
  cutTail: (sessionId: string, keep: number) => Promise<void>;
  /**
   * What a forger without the signing key can do: replace the stored entries from `from` on with
   * `chain` (validly hashed, chained to the entry before) and move the recorded head to its last
   * entry, keeping the old signature, or writing `signed` in its place (null: no signature).
   */
  rewriteTail: (
    sessionId: string,
    from: number,
    chain: readonly HashedEntry[],
    signed?: HeadSignature | null,
  ) => Promise<void>;
  cleanup: () => Promise<void>;
}

/** What a store under test is built with. */
export interface StoreOptions {
  signer?: HeadSigner;
}

/** A small but complete session log. */
export function sampleEntries(n = 5): LogEntry[] {
  const entries: LogEntry[] = [
    {
      kind: "session_start",
      ts: 1_000,
      system_prompt: "You are helpful.",
      config: { max_tokens: 1024 },
      history: [],
    },
  ];
  for (let i = 1; i < n; i++) {
    entries.push(
      i % 2 === 1
        ? { kind: "user_input", ts: 1_000 + i, item: userMessage(`question ${i}`) }
        : { kind: "assistant_items", ts: 1_000 + i, items: [assistantMessage(`answer ${i}`)] },
    );
  }
  return entries;
}

/** Write `entries` as a new session, one append per entry; returns the chain. */
export async function writeSession(
  store: Store,
  sessionId: string,
  entries: readonly LogEntry[],
): Promise<HashedEntry[]> {
  const chain = buildChain(null, entries);
  for (const hashed of chain) await store.append(sessionId, [hashed]);
  return chain;
}

const corruption = (promise: Promise<unknown>): Promise<LogCorruptError> =>
  rejectionOf(promise, (error) => error instanceof LogCorruptError);

/** The store contract, run against storage from `makeStore`. */
export function describeStoreContract(
  name: string,
  makeStore: (options?: StoreOptions) => Promise<StoreHarness>,
): void {
  describe(`${name} (store contract)`, () => {
    const t = harnessForEachTest(() => makeStore());

    async function another(): Promise<Store> {
      const other = await t.harness.openAnother();
      t.others.push(other);
      return other;
    }

    it("reads back what was appended, with positions and the chain intact", async () => {
      const id = uuidv7();
      const chain = await writeSession(t.store, id, sampleEntries(5));
      const read = await t.store.readAll(id);
      expect(read.map((e) => e.position)).toEqual([0, 1, 2, 3, 4]);
      expect(read.map((e) => e.hash)).toEqual(chain.map((e) => e.hash));
      expect(read.map((e) => e.prev_hash)).toEqual(chain.map((e) => e.prev_hash));
      expect(read.map((e) => canonicalJson(e.entry))).toEqual(chain.map((e) => canonicalJson(e.entry)));
      expect(read[0]!.prev_hash).toBeNull();
    });

    it("returns the new head from an append and from readHead", async () => {
      const id = uuidv7();
      const chain = buildChain(null, sampleEntries(4));
      expect(await t.store.append(id, chain.slice(0, 1))).toEqual({ hash: chain[0]!.hash, position: 0 });
      expect(await t.store.append(id, chain.slice(1))).toEqual({ hash: chain[3]!.hash, position: 3 });
      expect(await t.store.readHead(id)).toEqual({ hash: chain[3]!.hash, position: 3 });
    });

    it("tells onWritten the new head once, before the append resolves, and never for a refused append", async () => {
      const id = uuidv7();
      const chain = buildChain(null, sampleEntries(2));
      const told: LogHead[] = [];
      let toldBeforeResolved = false;
      const head = await t.store
        .append(id, chain, undefined, { onWritten: (written) => told.push(written) })
        .then((resolved) => {
          toldBeforeResolved = told.length === 1;
          return resolved;
        });
      expect(toldBeforeResolved).toBe(true);
      expect(told).toEqual([head]);
      const stale = hashEntry(chain[0]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
      await expect(
        t.store.append(id, [stale], undefined, { onWritten: (written) => told.push(written) }),
      ).rejects.toBeInstanceOf(AppendConflictError);
      expect(told).toHaveLength(1);
    });

    it("treats an unknown session as absent", async () => {
      const id = uuidv7();
      await expect(t.store.readAll(id)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(t.store.readRange(id, 0, 10)).rejects.toBeInstanceOf(SessionNotFoundError);
      expect(await t.store.readHead(id)).toBeNull();
      expect(await t.store.exists(id)).toBe(false);
      await expect(t.store.deleteSession(id)).resolves.toBeUndefined();
    });

    it("reads ranges, including an empty one past the end", async () => {
      const id = uuidv7();
      const chain = await writeSession(t.store, id, sampleEntries(6));
      const middle = await t.store.readRange(id, 2, 3);
      expect(middle.map((e) => e.position)).toEqual([2, 3, 4]);
      expect(middle.map((e) => e.hash)).toEqual(chain.slice(2, 5).map((e) => e.hash));
      expect((await t.store.readRange(id, 4, 100)).map((e) => e.position)).toEqual([4, 5]);
      expect(await t.store.readRange(id, 6, 10)).toEqual([]);
      expect(await t.store.readRange(id, 0, 0)).toEqual([]);
      expect((await t.store.readRange(id, 0, 1))[0]!.hash).toBe(chain[0]!.hash);
    });

    it("lists sessions newest first and reports existence", async () => {
      const first = uuidv7();
      const second = uuidv7();
      await writeSession(t.store, first, sampleEntries(1));
      await writeSession(t.store, second, sampleEntries(2));
      expect(await t.store.listSessions()).toEqual([second, first]);
      expect(await t.store.exists(first)).toBe(true);
    });

    it("deletes a session entirely", async () => {
      const keep = uuidv7();
      const drop = uuidv7();
      await writeSession(t.store, keep, sampleEntries(2));
      await writeSession(t.store, drop, sampleEntries(3));
      await t.store.deleteSession(drop);
      expect(await t.store.exists(drop)).toBe(false);
      expect(await t.store.readHead(drop)).toBeNull();
      expect(await t.store.listSessions()).toEqual([keep]);
      // The id can start over from an empty log.
      await writeSession(t.store, drop, sampleEntries(1));
      expect(await t.store.readAll(drop)).toHaveLength(1);
    });

    it("rejects an append whose expected head is stale, writing nothing", async () => {
      const id = uuidv7();
      const chain = await writeSession(t.store, id, sampleEntries(3));
      const stale = hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
      const error = await t.store.append(id, [stale]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppendConflictError);
      expect((error as AppendConflictError).expectedHead).toBe(chain[1]!.hash);
      expect((error as AppendConflictError).actualHead).toBe(chain[2]!.hash);
      expect(await t.store.readAll(id)).toHaveLength(3);
    });

    it("refuses to create a session that already exists", async () => {
      const id = uuidv7();
      await writeSession(t.store, id, sampleEntries(2));
      const again = buildChain(null, sampleEntries(1));
      await expect(t.store.append(id, again)).rejects.toBeInstanceOf(AppendConflictError);
      expect(await t.store.readAll(id)).toHaveLength(2);
    });

    it("refuses to append to a missing session as if it existed", async () => {
      const chain = buildChain(null, sampleEntries(2));
      await expect(t.store.append(uuidv7(), chain.slice(1))).rejects.toBeInstanceOf(AppendConflictError);
    });

    it("lets exactly one of two concurrent appends on the same head win", async () => {
      const id = uuidv7();
      const chain = await writeSession(t.store, id, sampleEntries(2));
      const head = chain[1]!.hash;
      const a = hashEntry(head, { kind: "user_input", ts: 10, item: userMessage("from a") });
      const b = hashEntry(head, { kind: "user_input", ts: 11, item: userMessage("from b") });
      const results = await Promise.allSettled([t.store.append(id, [a]), t.store.append(id, [b])]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const rejected = results.filter((r) => r.status === "rejected");
      expect(rejected).toHaveLength(1);
      expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(AppendConflictError);
      const read = await t.store.readAll(id);
      expect(read).toHaveLength(3);
      expect([a.hash, b.hash]).toContain(read[2]!.hash);
    });

    it("rejects malformed appends before writing anything", async () => {
      const id = uuidv7();
      const chain = buildChain(null, sampleEntries(3));
      await expect(t.store.append(id, [])).rejects.toBeInstanceOf(InvalidAppendError);
      const wrongHash = { ...chain[0]!, hash: "0".repeat(64) };
      await expect(t.store.append(id, [wrongHash])).rejects.toBeInstanceOf(InvalidAppendError);
      await expect(t.store.append(id, [chain[0]!, chain[2]!])).rejects.toBeInstanceOf(InvalidAppendError);
      expect(await t.store.exists(id)).toBe(false);
    });

    it("keeps every session's chain intact when many sessions append at once", async () => {
      const ids = Array.from({ length: 20 }, () => uuidv7());
      await Promise.all(ids.map((id) => writeSession(t.store, id, sampleEntries(8))));
      for (const id of ids) expect((await t.store.readAll(id)).map((e) => e.position)).toHaveLength(8);
    });

    it("shares storage with a second instance: it sees the writes and its stale append conflicts", async () => {
      const id = uuidv7();
      const chain = await writeSession(t.store, id, sampleEntries(2));
      const second = await another();
      expect((await second.readAll(id)).map((e) => e.hash)).toEqual(chain.map((e) => e.hash));
      const seen = (await second.readHead(id))!.hash;
      await t.store.append(id, [hashEntry(seen, { kind: "turn_end", ts: 5, turn_count: 1 })]);
      const late = hashEntry(seen, { kind: "turn_end", ts: 6, turn_count: 2 });
      await expect(second.append(id, [late])).rejects.toBeInstanceOf(AppendConflictError);
      const head = (await second.readHead(id))!;
      const next = hashEntry(head.hash, { kind: "turn_end", ts: 7, turn_count: 2 });
      expect(await second.append(id, [next])).toEqual({ hash: next.hash, position: 3 });
      expect((await t.store.readAll(id)).map((e) => e.hash).at(-1)).toBe(next.hash);
    });

    it("names the session and position of a corrupt entry on readAll and readRange", async () => {
      const id = uuidv7();
      await writeSession(t.store, id, sampleEntries(6));
      await t.harness.corruptEntry(id, 3);
      const error = await corruption(t.store.readAll(id));
      expect(error.sessionId).toBe(id);
      expect(error.position).toBe(3);
      expect((await corruption(t.store.readRange(id, 2, 3))).position).toBe(3);
      // Entries before the corruption still read and verify.
      expect(await t.store.readRange(id, 0, 3)).toHaveLength(3);
    });

    it("keeps other sessions readable when one is corrupt", async () => {
      const bad = uuidv7();
      const good = uuidv7();
      await writeSession(t.store, bad, sampleEntries(3));
      await writeSession(t.store, good, sampleEntries(3));
      await t.harness.corruptEntry(bad, 1);
      await expect(t.store.readAll(bad)).rejects.toBeInstanceOf(LogCorruptError);
      expect(await t.store.readAll(good)).toHaveLength(3);
    });

    it("detects entries cut off the end of a log, and chains nothing onto the cut", async () => {
      const id = uuidv7();
      const chain = await writeSession(t.store, id, sampleEntries(5));
      await t.harness.cutTail(id, 3);
      const error = await corruption(t.store.readAll(id));
      expect(error.sessionId).toBe(id);
      expect(error.position).toBe(3);
      expect((await corruption(t.store.readRange(id, 0, 10))).position).toBe(3);
      await corruption(t.store.readHead(id));
      // A writer that only knows the shortened log cannot extend it.
      const onCut = hashEntry(chain[2]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
      await expect(t.store.append(id, [onCut])).rejects.toBeInstanceOf(LogCorruptError);
      // The entries that remain still read as a range that stops short of the end.
      expect(await t.store.readRange(id, 0, 2)).toHaveLength(2);
    });

    it("detects a cut of the tail wherever it falls (property)", async () => {
      await fc.assert(
        fc.asyncProperty(logArbitrary(8), fc.nat(), async (entries, cut) => {
          fc.pre(entries.length >= 2);
          const id = uuidv7();
          await writeSession(t.store, id, entries);
          const keep = (cut % (entries.length - 1)) + 1;
          await t.harness.cutTail(id, keep);
          expect((await corruption(t.store.readAll(id))).position).toBe(keep);
        }),
        { numRuns: 10 },
      );
    });

    it("detects a log whose every entry was removed while its recorded head remains", async () => {
      const id = uuidv7();
      await writeSession(t.store, id, sampleEntries(3));
      await t.harness.cutTail(id, 0);
      await expect(t.store.readAll(id)).rejects.toBeInstanceOf(LogCorruptError);
    });

    it("signs each recorded head when given a signer, and detects a log rewritten and re-hashed behind it", async () => {
      const signer = HeadSigner.generate();
      const signed = await makeStore({ signer });
      try {
        const id = uuidv7();
        const chain = await writeSession(signed.store, id, sampleEntries(5));
        const record = await signed.store.readHeadRecord(id);
        expect(record).toMatchObject({ position: 4, hash: chain[4]!.hash, signed: { key_id: signer.keyId } });
        expect(signer.check(id, 4, chain[4]!.hash, record!.signed!)).toBe("valid");

        // The forger rewrites positions 2..4 with other content, hashes it all correctly and moves
        // the recorded head along: the chain verifies, the signature cannot.
        const forged = buildChain(chain[1]!.hash, [
          { kind: "user_input", ts: 2_002, item: userMessage("something else") },
          { kind: "assistant_items", ts: 2_003, items: [assistantMessage("forged")] },
          { kind: "turn_end", ts: 2_004, turn_count: 1 },
        ]);
        await signed.rewriteTail(id, 2, forged);
        const error = await corruption(signed.store.readAll(id));
        expect(error.position).toBe(4);
        expect(error.reason).toMatch(/signature/);
      } finally {
        await signed.store.close();
        await signed.cleanup();
      }
    });

    it("with a signer, refuses a re-hashed log whose head signature a database writer cleared, faked or copied", async () => {
      const signer = HeadSigner.generate();
      const stranger = HeadSigner.generate();
      const signed = await makeStore({ signer });
      try {
        const donor = uuidv7();
        const donorChain = await writeSession(signed.store, donor, sampleEntries(3));
        const donorRecord = (await signed.store.readHeadRecord(donor))!;
        // Every value of the two signature fields a forger can write without the private key.
        const forgeries: Array<(position: number, hash: string, id: string) => HeadSignature | null> = [
          () => null,
          () => ({ signature: "", key_id: signer.keyId }),
          () => ({ signature: donorRecord.signed!.signature, key_id: signer.keyId }),
          (position, hash, id) => stranger.sign(id, position, hash),
          (position, hash, id) => ({ ...stranger.sign(id, position, hash), key_id: signer.keyId }),
          () => ({ signature: "AAAA", key_id: "0123456789abcdef" }),
          () => ({ signature: donorRecord.signed!.signature, key_id: 'x"\n'.repeat(40) }),
        ];
        for (const [index, forge] of forgeries.entries()) {
          const id = uuidv7();
          const chain = await writeSession(signed.store, id, sampleEntries(5));
          const forged = buildChain(chain[1]!.hash, [
            { kind: "user_input", ts: 3_002, item: userMessage(`forged ${index}`) },
            { kind: "assistant_items", ts: 3_003, items: [assistantMessage("forged")] },
          ]);
          await signed.rewriteTail(id, 2, forged, forge(3, forged[1]!.hash, id));
          const error = await corruption(signed.store.readAll(id));
          expect(error.position).toBe(3);
          expect(error.reason).toMatch(/sign/);
          // Nothing chains on it either.
          const next = buildChain(forged[1]!.hash, [{ kind: "turn_end", ts: 3_004, turn_count: 1 }]);
          await expect(signed.store.append(id, next)).rejects.toBeInstanceOf(LogCorruptError);
        }
        expect((await signed.store.readAll(donor)).map((entry) => entry.hash)).toEqual(
          donorChain.map((entry) => entry.hash),
        );
      } finally {
        await signed.store.close();
        await signed.cleanup();
      }
    });

    it("records an unsigned head without a signer", async () => {
      const id = uuidv7();
      const chain = await writeSession(t.store, id, sampleEntries(2));
      expect(await t.store.readHeadRecord(id)).toEqual({ position: 1, hash: chain[1]!.hash, signed: null });
    });

    it("round-trips random logs: read == written, verified, same replayed state", async () => {
      await fc.assert(
        fc.asyncProperty(logArbitrary(10), fc.integer({ min: 1, max: 4 }), async (entries, batch) => {
          const id = uuidv7();
          const chain = buildChain(null, entries);
          for (let i = 0; i < chain.length; i += batch) await t.store.append(id, chain.slice(i, i + batch));
          const read = await t.store.readAll(id);
          expect(read.map((e) => e.hash)).toEqual(chain.map((e) => e.hash));
          expect(canonicalJson(collectState(read))).toBe(canonicalJson(collectState(chain)));
        }),
        { numRuns: 15 },
      );
    });
  });
}
