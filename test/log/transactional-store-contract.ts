/**
 * The contract of a store whose writes join the caller's transactions (`TransactionalStore`, the
 * daemon's view of the SQLite and PostgreSQL stores), as one reusable suite: appends and
 * deletions inside a write of the store's group commit, the group commit itself (batching,
 * savepoints, the transaction memo, closing) and the signing of old unsigned heads. A backend's
 * test file calls `describeTransactionalStoreContract` with a factory for fresh storage.
 *
 * Writes are composed with `andThen` and `recover` below, never with await: on SQLite a write
 * must be synchronous, and the same test body must run on both.
 */
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { type Awaitable, andThen } from "../../src/log/awaitable.js";
import { buildChain, hashEntry } from "../../src/log/entry-hash.js";
import {
  AppendConflictError,
  LogCorruptError,
  SessionNotFoundError,
  StoreClosedError,
} from "../../src/log/errors.js";
import { HeadSigner } from "../../src/log/head-signer.js";
import type { TransactionalStore } from "../../src/log/store.js";
import { sampleEntries, writeSession } from "./store-contract.js";
import { harnessForEachTest } from "./store-harness.js";

/** Fresh storage for one test. */
export interface TransactionalStoreHarness<Tx> {
  store: TransactionalStore<Tx>;
  /** A second store on the same storage, built with `signer` when given. */
  openAnother: (options?: { signer?: HeadSigner }) => Promise<TransactionalStore<Tx>>;
  /** Change the stored form of the entry at `position` (bypassing the store) so its content differs. */
  corruptEntry: (sessionId: string, position: number) => Promise<void>;
  cleanup: () => Promise<void>;
}

/** `run()`, or `handle(error)` when it throws or rejects: a try/catch that keeps a synchronous write synchronous. */
function recover<T>(run: () => Awaitable<T>, handle: (error: unknown) => Awaitable<T>): Awaitable<T> {
  let result: Awaitable<T>;
  try {
    result = run();
  } catch (error) {
    return handle(error);
  }
  return result instanceof Promise ? result.catch(handle) : result;
}

/** The contract, run against storage from `makeStore`. */
export function describeTransactionalStoreContract<Tx>(
  name: string,
  makeStore: () => Promise<TransactionalStoreHarness<Tx>>,
): void {
  describe(`${name} (transactional store contract)`, () => {
    const t = harnessForEachTest(makeStore);

    async function another(options?: { signer?: HeadSigner }): Promise<TransactionalStore<Tx>> {
      const other = await t.harness.openAnother(options);
      t.others.push(other);
      return other;
    }

    it("appends inside a write of its group commit, committing with the write's other appends", async () => {
      const a = uuidv7();
      const b = uuidv7();
      const chainA = buildChain(null, sampleEntries(2));
      const chainB = buildChain(null, sampleEntries(3));
      const before = t.store.groupCommitStats();
      const head = await t.store.commitQueue.run(a, (tx) =>
        andThen(t.store.appendInTransaction(tx, a, chainA), () => t.store.appendInTransaction(tx, b, chainB)),
      );
      expect(head).toEqual({ hash: chainB[2]!.hash, position: 2 });
      expect(t.store.groupCommitStats()).toEqual({
        transactions: before.transactions + 1,
        requests: before.requests + 1,
      });
      expect((await t.store.readAll(a)).map((entry) => entry.hash)).toEqual(
        chainA.map((entry) => entry.hash),
      );
      expect(await t.store.readHead(b)).toEqual(head);
    });

    it("rolls an append back with the write that fails after it, and commits the batch's other writes", async () => {
      const refused = uuidv7();
      const kept = uuidv7();
      const results = await Promise.allSettled([
        t.store.commitQueue.run(refused, (tx) =>
          andThen(t.store.appendInTransaction(tx, refused, buildChain(null, sampleEntries(2))), () => {
            throw new Error("the caller's row cannot be written");
          }),
        ),
        t.store.append(kept, buildChain(null, sampleEntries(2))),
      ]);
      expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled"]);
      expect((results[0] as PromiseRejectedResult).reason).toEqual(
        new Error("the caller's row cannot be written"),
      );
      expect(await t.store.exists(refused)).toBe(false);
      expect(await t.store.readHead(refused)).toBeNull();
      expect(await t.store.readAll(kept)).toHaveLength(2);
    });

    it("appends inside a write that fails with it (appendInWrite), alone or in a batch: all of the write or none of it", async () => {
      const alone = uuidv7();
      const chain = buildChain(null, sampleEntries(2));
      const stale = hashEntry(chain[0]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
      expect(await t.store.commitQueue.run(alone, (tx) => t.store.appendInWrite(tx, alone, chain))).toEqual({
        hash: chain[1]!.hash,
        position: 1,
      });
      // A stale head fails the write whole; so does a write failing after the append, alone or batched.
      const kept = uuidv7();
      const results = await Promise.allSettled([
        t.store.commitQueue.run(alone, (tx) => t.store.appendInWrite(tx, alone, [stale])),
        t.store.commitQueue.run(kept, (tx) =>
          t.store.appendInWrite(tx, kept, buildChain(null, sampleEntries(1))),
        ),
      ]);
      expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled"]);
      expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(AppendConflictError);
      const next = hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 10, turn_count: 1 });
      await expect(
        t.store.commitQueue.run(alone, (tx) =>
          andThen(t.store.appendInWrite(tx, alone, [next]), () => {
            throw new Error("the caller's row cannot be written");
          }),
        ),
      ).rejects.toThrow("the caller's row cannot be written");
      expect((await t.store.readAll(alone)).map((entry) => entry.hash)).toEqual(
        chain.map((entry) => entry.hash),
      );
      expect(await t.store.readHead(alone)).toEqual({ hash: chain[1]!.hash, position: 1 });
      expect(await t.store.readAll(kept)).toHaveLength(1);
    });

    it("refuses a stale head inside a write with AppendConflictError, writing nothing, and the write carries on", async () => {
      const id = uuidv7();
      const chain = await writeSession(t.store, id, sampleEntries(3));
      const stale = hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
      const next = hashEntry(chain[2]!.hash, { kind: "turn_end", ts: 10, turn_count: 1 });
      const seen: unknown[] = [];
      const head = await t.store.commitQueue.run(id, (tx) =>
        andThen(
          recover(
            () => t.store.appendInTransaction(tx, id, [stale]),
            (error) => {
              seen.push(error);
              return null;
            },
          ),
          () => t.store.appendInTransaction(tx, id, [next]),
        ),
      );
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeInstanceOf(AppendConflictError);
      expect((seen[0] as AppendConflictError).actualHead).toBe(chain[2]!.hash);
      expect(head).toEqual({ hash: next.hash, position: 3 });
      expect((await t.store.readAll(id)).map((entry) => entry.hash)).toEqual([
        ...chain.map((entry) => entry.hash),
        next.hash,
      ]);
    });

    it("deletes a session inside a write, and keeps it when the write fails after the deletion", async () => {
      const kept = uuidv7();
      const dropped = uuidv7();
      await writeSession(t.store, kept, sampleEntries(2));
      await writeSession(t.store, dropped, sampleEntries(2));
      await expect(
        t.store.commitQueue.run(kept, (tx) =>
          andThen(t.store.deleteInTransaction(tx, kept), () => {
            throw new Error("the caller's rows cannot be deleted");
          }),
        ),
      ).rejects.toThrow("the caller's rows cannot be deleted");
      expect(await t.store.readAll(kept)).toHaveLength(2);
      await t.store.commitQueue.run(dropped, (tx) => t.store.deleteInTransaction(tx, dropped));
      expect(await t.store.exists(dropped)).toBe(false);
      expect(await t.store.readHeadRecord(dropped)).toBeNull();
      await expect(t.store.readAll(dropped)).rejects.toBeInstanceOf(SessionNotFoundError);
      expect(await t.store.listSessions()).toEqual([kept]);
    });

    it("group-commits the appends of many sessions queued in one turn into one transaction", async () => {
      const ids = Array.from({ length: 50 }, () => uuidv7());
      const before = t.store.groupCommitStats();
      await Promise.all(ids.map((id) => t.store.append(id, buildChain(null, sampleEntries(1)))));
      const after = t.store.groupCommitStats();
      expect(after.requests - before.requests).toBe(50);
      expect(after.transactions - before.transactions).toBe(1);
      for (const id of ids) expect(await t.store.readAll(id)).toHaveLength(1);
    });

    it("fails only the conflicting append of a group commit", async () => {
      const shared = uuidv7();
      const chain = await writeSession(t.store, shared, sampleEntries(2));
      const others = Array.from({ length: 5 }, () => uuidv7());
      const a = hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 1, turn_count: 1 });
      const b = hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 2, turn_count: 1 });
      const before = t.store.groupCommitStats();
      const results = await Promise.allSettled([
        t.store.append(shared, [a]),
        ...others.map((id) => t.store.append(id, buildChain(null, sampleEntries(2)))),
        t.store.append(shared, [b]),
      ]);
      expect(results.map((r) => r.status)).toEqual([...Array(6).fill("fulfilled"), "rejected"]);
      expect((results[6] as PromiseRejectedResult).reason).toBeInstanceOf(AppendConflictError);
      expect(t.store.groupCommitStats().transactions - before.transactions).toBe(1);
      for (const id of others) expect(await t.store.readAll(id)).toHaveLength(2);
      expect((await t.store.readAll(shared)).map((e) => e.hash)).toEqual([
        chain[0]!.hash,
        chain[1]!.hash,
        a.hash,
      ]);
    });

    it("shares its transactions with the caller's own writes queued in the same turn, in the order queued", async () => {
      const order: string[] = [];
      const id = uuidv7();
      const before = t.store.groupCommitStats();
      const results = await Promise.allSettled([
        t.store.commitQueue.run("first", () => {
          order.push("first");
          return 1;
        }),
        t.store.commitQueue.run("second", () => {
          order.push("second");
          throw new Error("refused");
        }),
        t.store.append(id, buildChain(null, sampleEntries(1)), () => {
          order.push("append");
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((results[0] as PromiseFulfilledResult<number>).value).toBe(1);
      expect(order).toEqual(["first", "second", "append"]);
      expect(t.store.groupCommitStats().transactions - before.transactions).toBe(1);
    });

    it("tells a write's onWritten once its transaction committed, before it resolves, and turns its throw into the write's error", async () => {
      const told: string[] = [];
      const first = uuidv7();
      const second = uuidv7();
      const results = await Promise.allSettled([
        t.store.commitQueue
          .run(
            first,
            (tx) => t.store.appendInTransaction(tx, first, buildChain(null, sampleEntries(1))),
            () => told.push("told"),
          )
          .then(() => told.push("resolved")),
        t.store.commitQueue.run(
          second,
          (tx) => t.store.appendInTransaction(tx, second, buildChain(null, sampleEntries(1))),
          () => {
            throw new Error("the caller could not take it in");
          },
        ),
        t.store.commitQueue.run(
          "refused",
          () => {
            throw new Error("refused");
          },
          () => told.push("told of a refused write"),
        ),
      ]);
      expect(told).toEqual(["told", "resolved"]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected"]);
      expect((results[1] as PromiseRejectedResult).reason).toEqual(
        new Error("the caller could not take it in"),
      );
      // The rows of a write whose caller failed to take them in are committed all the same.
      expect(await t.store.readAll(second)).toHaveLength(1);
    });

    it("shows a write's memo notes to the later writes of its transaction only, dropping a rolled-back write's", async () => {
      const seen: Record<string, boolean> = {};
      let handle: Tx | null = null;
      const outcomes = await Promise.allSettled([
        t.store.commitQueue.run("s", (tx) => {
          handle = tx;
          const memo = t.store.commitQueue.memoOf(tx)!;
          seen.ownBefore = memo.has("kept");
          memo.add("kept");
          seen.ownAfter = memo.has("kept");
        }),
        t.store.commitQueue.run("s", (tx) => {
          t.store.commitQueue.memoOf(tx)!.add("failed");
          throw new Error("this write fails after noting");
        }),
        t.store.commitQueue.run("s", (tx) => {
          const memo = t.store.commitQueue.memoOf(tx)!;
          seen.failed = memo.has("failed");
          seen.kept = memo.has("kept");
          memo.delete("kept");
        }),
        t.store.commitQueue.run("s", (tx) => {
          seen.deleted = t.store.commitQueue.memoOf(tx)!.has("kept");
        }),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        "fulfilled",
        "rejected",
        "fulfilled",
        "fulfilled",
      ]);
      expect(seen).toEqual({ ownBefore: false, ownAfter: true, failed: false, kept: true, deleted: false });
      expect(t.store.commitQueue.memoOf(handle!)).toBeNull();
      await t.store.commitQueue.run("s", (tx) => {
        seen.nextTransaction = t.store.commitQueue.memoOf(tx)!.has("kept");
      });
      expect(seen.nextTransaction).toBe(false);
    });

    it("commits what was queued when it closes, then refuses appends, deletions and writes with StoreClosedError", async () => {
      const id = uuidv7();
      const chain = buildChain(null, sampleEntries(2));
      const queued = t.store.append(id, chain);
      await t.store.close();
      await expect(queued).resolves.toEqual({ hash: chain[1]!.hash, position: 1 });
      await expect(t.store.append(uuidv7(), buildChain(null, sampleEntries(1)))).rejects.toBeInstanceOf(
        StoreClosedError,
      );
      await expect(t.store.deleteSession(id)).rejects.toBeInstanceOf(StoreClosedError);
      await expect(t.store.commitQueue.run(id, () => 1)).rejects.toBeInstanceOf(StoreClosedError);
      expect(await (await another()).readAll(id)).toHaveLength(2);
    });

    it("signs, once, the unsigned heads a store without a signer wrote, each only if its log verifies", async () => {
      const good = uuidv7();
      const bad = uuidv7();
      const goodChain = await writeSession(t.store, good, sampleEntries(4));
      await writeSession(t.store, bad, sampleEntries(4));
      await t.harness.corruptEntry(bad, 1);
      const signer = HeadSigner.generate();
      const signing = await another({ signer });
      await expect(signing.readAll(good)).rejects.toThrow(/not signed/);
      expect(await signing.signUnsignedHeads()).toEqual([good]);
      expect(await signing.signUnsignedHeads()).toEqual([]);
      expect((await signing.readAll(good)).map((entry) => entry.hash)).toEqual(goodChain.map((e) => e.hash));
      expect((await signing.readHeadRecord(good))?.signed?.key_id).toBe(signer.keyId);
      await expect(signing.readAll(bad)).rejects.toBeInstanceOf(LogCorruptError);
      expect((await signing.readHeadRecord(bad))?.signed).toBeNull();
      await expect(t.store.signUnsignedHeads()).rejects.toThrow(/needs a store with a signer/);
    });
  });
}
