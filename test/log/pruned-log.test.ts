/**
 * Retention's cut of a log, on real SQLite and real PostgreSQL: a log whose prefix was removed
 * together with a `pruned` record naming the cut verifies and replays to the same state; a
 * prefix removed any other way (no record, more than the record names, a record changed or
 * forged behind the store) is corruption.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { andThen } from "../../src/log/awaitable.js";
import { canonicalJson } from "../../src/log/canonical-json.js";
import { collectState } from "../../src/log/collect-state.js";
import type { LogEntry } from "../../src/log/entries.js";
import { hashEntry } from "../../src/log/entry-hash.js";
import { LogCorruptError } from "../../src/log/errors.js";
import { HeadSigner } from "../../src/log/head-signer.js";
import { PgStore } from "../../src/log/pg-store.js";
import { type PrunePlan, planPrune } from "../../src/log/prune-plan.js";
import type { RestoredState } from "../../src/log/restored-state.js";
import { forkAt } from "../../src/log/session-log.js";
import { SessionWriter } from "../../src/log/session-writer.js";
import { SqliteStore } from "../../src/log/sqlite-store.js";
import type { TransactionalStore } from "../../src/log/store.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import { rejectionOf } from "../support/rejection.js";

const connectionString = process.env.SKEIN_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

/** A store with a signer, and a way to change its rows behind its back (`?` placeholders). */
interface Harness {
  store: TransactionalStore<unknown>;
  behind(sql: string, ...params: Array<string | number>): Promise<void>;
  close(): Promise<void>;
}

async function sqliteHarness(signer: HeadSigner): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "skein-pruned-"));
  const store = new SqliteStore(join(dir, "log.sqlite"), { signer });
  return {
    store: store as TransactionalStore<unknown>,
    behind: async (sql, ...params) => {
      store.db.prepare(sql).run(...params);
    },
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function pgHarness(signer: HeadSigner): Promise<Harness> {
  const schema = `skein_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`SET search_path = ${schema}`);
  const store = await PgStore.open(
    { connectionString, options: `-c search_path=${schema}`, max: 4 },
    { signer },
  );
  return {
    store: store as TransactionalStore<unknown>,
    behind: async (sql, ...params) => {
      let n = 0;
      await admin.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      );
    },
    close: async () => {
      await store.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * A session of `turns` turns (user input, answer, turn end at 1+3i..3+3i) whose context was
 * compacted after turn `compactAfter`, keeping from turn `keptTurn` on, then `more` turns. Its
 * approval mode and model parameters change early, so a cut must carry them over.
 */
function sessionLog(compactAfter: number, keptTurn: number, more: number): LogEntry[] {
  const entries: LogEntry[] = [
    { kind: "session_start", ts: 1, system_prompt: "be brief", config: {}, history: [] },
  ];
  const turn = (i: number) => {
    entries.push({ kind: "user_input", ts: 10 + i, item: userMessage(`question ${i}`) });
    entries.push({
      kind: "assistant_items",
      ts: 10 + i,
      items: [assistantMessage(`answer ${i} `.repeat(20))],
    });
    entries.push({ kind: "turn_end", ts: 10 + i, turn_count: i + 1 });
  };
  entries.push({ kind: "approval_policy_changed", ts: 2, policy: null, mode: "auto-edit" });
  entries.push({ kind: "config_changed", ts: 3, config: { temperature: 0.5 } });
  const firstTurnAt = entries.length;
  for (let i = 0; i < compactAfter; i++) turn(i);
  entries.push({
    kind: "compaction",
    ts: 100,
    summary: "what was said",
    first_kept_position: firstTurnAt + 3 * keptTurn,
    before_tokens: 1000,
    after_tokens: 100,
  });
  for (let i = compactAfter; i < compactAfter + more; i++) turn(i);
  return entries;
}

async function writeLog(store: TransactionalStore<unknown>, entries: LogEntry[]): Promise<string> {
  const id = uuidv7();
  await SessionWriter.forNewSession(store, id).append(entries);
  return id;
}

/** What retention's storage does: append the record after `head` and remove the prefix, in one write. */
async function applyPrune(store: TransactionalStore<unknown>, id: string, head: string, plan: PrunePlan) {
  await store.commitQueue.run(id, (tx) =>
    andThen(store.appendInTransaction(tx, id, [hashEntry(head, plan.entry)]), () =>
      store.pruneInTransaction(tx, id, plan.upTo),
    ),
  );
}

const compared = [
  "system_prompt",
  "config",
  "history",
  "history_positions",
  "request_count",
  "approval_mode",
  "last_compaction",
] as const;
function replayed(state: RestoredState): string {
  return canonicalJson(Object.fromEntries(compared.map((field) => [field, state[field]])));
}

async function prunedSession(
  store: TransactionalStore<unknown>,
  keep = 4,
): Promise<{ id: string; plan: PrunePlan }> {
  const id = await writeLog(store, sessionLog(6, 4, 3));
  const entries = await store.readAll(id);
  const decision = planPrune(entries, { keep_entries: keep, above_bytes: 0 }, 1_000);
  if (decision.kind !== "prune") throw new Error(`expected a cut: ${decision.reason}`);
  await applyPrune(store, id, entries[entries.length - 1]!.hash, decision.plan);
  return { id, plan: decision.plan };
}

async function corruption(store: TransactionalStore<unknown>, id: string): Promise<LogCorruptError> {
  return rejectionOf(store.readAll(id), (error) => error instanceof LogCorruptError);
}

for (const [name, open] of [
  ["SQLite", sqliteHarness],
  ["PostgreSQL", pgHarness],
] as const) {
  describe(`a pruned log (${name})`, () => {
    let harness: Harness;
    let store: TransactionalStore<unknown>;
    beforeAll(async () => {
      harness = await open(HeadSigner.generate());
      store = harness.store;
    });
    afterAll(async () => harness.close());

    it("verifies and replays to the state of the whole log, wherever the cut falls", async () => {
      const cuts = new Set<number>();
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 6 }),
          fc.integer({ min: 0, max: 6 }),
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 1, max: 30 }),
          async (compactAfter, kept, more, keep) => {
            const keptTurn = Math.min(kept, compactAfter);
            const id = await writeLog(store, sessionLog(compactAfter, keptTurn, more));
            const whole = await store.readAll(id);
            const decision = planPrune(whole, { keep_entries: keep, above_bytes: 0 }, 1_000);
            if (decision.kind === "keep") {
              expect(decision.reason).toBe("nothing before the cut");
              return;
            }
            const { plan } = decision;
            const last = whole[whole.length - 1]!;
            expect(plan.upTo).toBeLessThanOrEqual(last.position + 1 - keep);
            await applyPrune(store, id, last.hash, plan);
            cuts.add(plan.upTo);
            const kept_ = await store.readAll(id);
            expect(kept_[0]!.position).toBe(plan.upTo);
            expect(kept_[kept_.length - 1]!.entry.kind).toBe("pruned");
            expect(replayed(collectState(kept_))).toBe(replayed(collectState(whole)));
            expect((await store.readHead(id))?.position).toBe(last.position + 1);
            // A range read from 0 starts at the cut; one wholly before it is empty.
            const range = await store.readRange(id, 0, 10_000);
            expect(range.map((e) => e.position)).toEqual(kept_.map((e) => e.position));
            expect(await store.readRange(id, 0, plan.upTo)).toEqual([]);
          },
        ),
        { numRuns: 25 },
      );
      expect(cuts.size).toBeGreaterThan(3);
    });

    it("is cut again by a later prune, which only the latest record then answers for", async () => {
      const { id } = await prunedSession(store);
      const first = await store.readAll(id);
      const writer = SessionWriter.fromEntries(store, id, first);
      const head = writer.position;
      await writer.append([
        ...sessionLog(1, 1, 0).slice(3, 6),
        {
          kind: "compaction",
          ts: 200,
          summary: "again",
          first_kept_position: head + 1,
          before_tokens: 9,
          after_tokens: 1,
        },
      ]);
      const before = await store.readAll(id);
      const decision = planPrune(before, { keep_entries: 1, above_bytes: 0 }, 2_000);
      if (decision.kind !== "prune") throw new Error(decision.reason);
      await applyPrune(store, id, before[before.length - 1]!.hash, decision.plan);
      const after = await store.readAll(id);
      expect(after[0]!.position).toBe(head + 1);
      expect(replayed(collectState(after))).toBe(replayed(collectState(before)));
    });

    it("without a pruned record, a missing prefix is corruption, wherever the cut falls", async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 20 }), async (cut) => {
          const id = await writeLog(store, sessionLog(4, 2, 2));
          await harness.behind("DELETE FROM transcript WHERE session = ? AND position < ?", id, cut);
          const error = await corruption(store, id);
          expect(error.message).toMatch(/missing and no pruned record names that cut/);
        }),
        { numRuns: 8 },
      );
    });

    it("removing more than the record names is corruption", async () => {
      const { id, plan } = await prunedSession(store);
      await harness.behind("DELETE FROM transcript WHERE session = ? AND position < ?", id, plan.upTo + 1);
      expect((await corruption(store, id)).message).toMatch(/names a cut at/);
    });

    it("lowering or raising the record's up_to breaks its hash", async () => {
      for (const delta of [-1, 1]) {
        const { id, plan } = await prunedSession(store);
        await harness.behind(
          "UPDATE transcript SET entry = REPLACE(entry, ?, ?) WHERE session = ? AND kind = 'pruned'",
          `"up_to":${plan.upTo}`,
          `"up_to":${plan.upTo + delta}`,
          id,
        );
        expect((await corruption(store, id)).message).toMatch(/hash mismatch/);
      }
    });

    it("a record forged behind the store is not under a valid signed head", async () => {
      const id = await writeLog(store, sessionLog(6, 4, 3));
      const entries = await store.readAll(id);
      const decision = planPrune(entries, { keep_entries: 4, above_bytes: 0 }, 1_000);
      if (decision.kind !== "prune") throw new Error(decision.reason);
      const last = entries[entries.length - 1]!;
      const forged = hashEntry(last.hash, decision.plan.entry);
      // Everything a writer without the key can do: cut, append a well-formed record, move the head.
      await harness.behind(
        "DELETE FROM transcript WHERE session = ? AND position < ?",
        id,
        decision.plan.upTo,
      );
      await harness.behind(
        "INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES (?, ?, ?, ?, 'pruned', ?, 0)",
        id,
        last.position + 1,
        forged.hash,
        last.hash,
        canonicalJson(decision.plan.entry),
      );
      await harness.behind(
        "UPDATE transcript_heads SET position = ?, hash = ? WHERE session = ?",
        last.position + 1,
        forged.hash,
        id,
      );
      expect((await corruption(store, id)).message).toMatch(/signature/);
    });

    it("is forked by the library from its replayed state", async () => {
      const { id } = await prunedSession(store);
      const kept = await store.readAll(id);
      const answer = kept.findLast((placed) => placed.entry.kind === "assistant_items")!;
      const fork = await forkAt(store, id, answer.hash);
      const forked = collectState(await store.readAll(fork.sessionId));
      const source = collectState(
        kept.filter((placed) => placed.position <= answer.position).concat(kept.at(-1)!),
      );
      expect(forked.history).toEqual(source.history);
      expect(forked.system_prompt).toBe("be brief");
    });

    it("a record whose rows were put back (a restored copy) still verifies from position 0", async () => {
      const id = await writeLog(store, sessionLog(3, 2, 1));
      const entries = await store.readAll(id);
      const decision = planPrune(entries, { keep_entries: 2, above_bytes: 0 }, 1_000);
      if (decision.kind !== "prune") throw new Error(decision.reason);
      await store.append(id, [hashEntry(entries[entries.length - 1]!.hash, decision.plan.entry)]);
      const read = await store.readAll(id);
      expect(read[0]!.position).toBe(0);
      expect(replayed(collectState(read))).toBe(replayed(collectState(entries)));
    });
  });
}
