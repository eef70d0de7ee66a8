import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { v7 as uuidv7 } from "uuid";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import type { PositionedEntry } from "../../src/log/entries.js";
import { LogCorruptError } from "../../src/log/errors.js";
import { readPageRowsOf } from "../../src/log/sqlite-paged-read.js";
import { SqliteStore } from "../../src/log/sqlite-store.js";
import { logArbitrary } from "./arbitraries.js";
import { tamper, tamperings } from "./sqlite-tampering.js";
import { sampleEntries, writeSession } from "./store-contract.js";

// Through SqliteStore (its `readPageRows` option): a paged read must give what one query over
// all rows gives, and the store adds the recorded head's checks on top.
describe("SqlitePagedRead", () => {
  let dir: string;
  let store: SqliteStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skein-sqlite-paged-read-"));
    store = new SqliteStore(join(dir, "log.sqlite"));
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What a read gives: its entries, or the corruption it reports (position and reason). */
  async function outcome(read: () => Promise<unknown>): Promise<unknown> {
    try {
      return { entries: await read() };
    } catch (error) {
      if (error instanceof LogCorruptError) return { corrupt: error.position, reason: error.reason };
      return { error: String(error) };
    }
  }

  it("reads a log in pages exactly as one query over all its rows would, tampered or not (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        logArbitrary(9),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.record({ pick: fc.nat(), how: fc.constantFrom(...tamperings) }), { nil: undefined }),
        fc.nat(),
        fc.nat(),
        async (entries, pageRows, tampering, rangeFrom, rangeLimit) => {
          const id = uuidv7();
          const chain = await writeSession(store, id, entries);
          const paged = new SqliteStore(store.db, { readPageRows: pageRows });
          const whole = new SqliteStore(store.db, { readPageRows: 1_000_000 });
          if (tampering !== undefined) tamper(store.db, id, tampering.pick % entries.length, tampering.how);
          const from = rangeFrom % (entries.length + 1);
          const limit = rangeLimit % (entries.length + 2);
          const all = await outcome(() => paged.readAll(id));
          expect(all).toEqual(await outcome(() => whole.readAll(id)));
          expect(await outcome(() => paged.readRange(id, from, limit))).toEqual(
            await outcome(() => whole.readRange(id, from, limit)),
          );
          if (tampering === undefined) {
            // Compared as canonical text: a -0 written comes back as 0, as JSON has it.
            const read = (all as { entries: PositionedEntry[] }).entries;
            expect(read.map((e) => [e.position, e.hash, e.prev_hash, canonicalJson(e.entry)])).toEqual(
              chain.map((hashed, position) => [
                position,
                hashed.hash,
                hashed.prev_hash,
                canonicalJson(hashed.entry),
              ]),
            );
          } else {
            expect(all).toHaveProperty("corrupt");
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("refuses a page size that is not a positive safe integer (it is written into the statements' text)", () => {
    for (const readPageRows of [0, -1, 1.5, Number.NaN, 1e300, 2 ** 53]) {
      expect(() => new SqliteStore(store.db, { readPageRows })).toThrow(RangeError);
      expect(() => readPageRowsOf(readPageRows)).toThrow(RangeError);
    }
    expect(readPageRowsOf(undefined)).toBe(256);
  });

  it("reads a range that starts after a missing entry as corrupt, and one past the end as empty", async () => {
    const id = uuidv7();
    await writeSession(store, id, sampleEntries(4));
    expect(await outcome(() => store.readRange(id, 4, 2))).toEqual({ entries: [] });
    store.db.prepare("DELETE FROM transcript WHERE session = ? AND position = 1").run(id);
    expect(await outcome(() => store.readRange(id, 2, 2))).toEqual({
      corrupt: 1,
      reason: "the entry is missing",
    });
    store.db.prepare("UPDATE transcript SET hash = 'x' WHERE session = ? AND position = 2").run(id);
    expect(await outcome(() => store.readRange(id, 3, 1))).toEqual({
      corrupt: 2,
      reason: "hash is not 64 lowercase hex digits",
    });
  });

  it("sees a row slipped in between two pages at a fractional position", async () => {
    const id = uuidv7();
    await writeSession(store, id, sampleEntries(5));
    const paged = new SqliteStore(store.db, { readPageRows: 2 });
    tamper(store.db, id, 1, "extra row between");
    const error = await outcome(() => paged.readAll(id));
    expect(error).toEqual({ corrupt: 2, reason: "the entry is missing" });
  });

  it("detects a tampered prev_hash, kind or hash in the first row of a later page", async () => {
    for (const how of ["prev_hash garbage", "kind", "hash"] as const) {
      const id = uuidv7();
      await writeSession(store, id, sampleEntries(6));
      tamper(store.db, id, 3, how);
      const paged = new SqliteStore(store.db, { readPageRows: 3 });
      expect(await outcome(() => paged.readAll(id))).toHaveProperty("corrupt", 3);
      expect(await outcome(() => paged.readRange(id, 1, 4))).toHaveProperty("corrupt", 3);
    }
  });
});
