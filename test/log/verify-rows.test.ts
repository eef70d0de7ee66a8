import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import { buildChain } from "../../src/log/entry-hash.js";
import { LogCorruptError } from "../../src/log/errors.js";
import { type StoredRow, verifyRows } from "../../src/log/verify-rows.js";
import { logArbitrary } from "./arbitraries.js";

const SESSION = "s";

function rowsOf(entries: Parameters<typeof buildChain>[1]): StoredRow[] {
  return buildChain(null, entries).map((hashed, position) => [
    position,
    hashed.hash,
    hashed.prev_hash,
    hashed.entry.kind,
    canonicalJson(hashed.entry),
  ]);
}

/** The entries verifyRows gives, or the corruption it reports (position and reason). */
function outcome(verify: () => unknown): unknown {
  try {
    return { entries: verify() };
  } catch (error) {
    if (error instanceof LogCorruptError) return { corrupt: error.position, reason: error.reason };
    throw error;
  }
}

/** Verify `rows` in batches cut at `cuts`, each batch chained after the last entry verified. */
function verifyInBatches(rows: readonly StoredRow[], cuts: readonly number[]) {
  const into: ReturnType<typeof verifyRows> = [];
  let start = 0;
  for (const cut of [...cuts, rows.length]) {
    verifyRows(SESSION, rows.slice(start, cut), start, into.at(-1)?.hash ?? null, into);
    start = cut;
  }
  return into;
}

/** A column of one row replaced by another value, as a tampered table would hold. */
const columnChange = fc.record({
  pick: fc.nat(),
  column: fc.integer({ min: 0, max: 4 }),
  value: fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.constant("0".repeat(64))),
});

describe("verifyRows", () => {
  it("gives the same entries or the same corruption in batches as in one call (property)", () => {
    fc.assert(
      fc.property(
        logArbitrary(10),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.option(columnChange, { nil: undefined }),
        (entries, rawCuts, change) => {
          const rows = rowsOf(entries);
          if (change !== undefined) {
            const row = [...rows[change.pick % rows.length]!] as StoredRow;
            (row as unknown[])[change.column] = change.value;
            rows[change.pick % rows.length] = row;
          }
          const cuts = [...new Set(rawCuts.map((cut) => cut % (rows.length + 1)))].sort((a, b) => a - b);
          expect(outcome(() => verifyInBatches(rows, cuts))).toEqual(
            outcome(() => verifyRows(SESSION, rows, 0, null)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reports any changed column of a row at that row's position (property)", () => {
    fc.assert(
      fc.property(logArbitrary(10), columnChange, (entries, change) => {
        const rows = rowsOf(entries);
        const at = change.pick % rows.length;
        const before = rows[at]![change.column];
        fc.pre(before !== change.value);
        const row = [...rows[at]!] as unknown[];
        row[change.column] = change.value;
        rows[at] = row as StoredRow;
        expect(outcome(() => verifyRows(SESSION, rows, 0, null))).toHaveProperty("corrupt", at);
      }),
      { numRuns: 300 },
    );
  });

  it("gives each entry the verified hash before it as its prev_hash (property)", () => {
    fc.assert(
      fc.property(logArbitrary(10), (entries) => {
        const verified = verifyRows(SESSION, rowsOf(entries), 0, null);
        expect(verified.map((entry) => entry.prev_hash)).toEqual([
          null,
          ...verified.slice(0, -1).map((entry) => entry.hash),
        ]);
      }),
      { numRuns: 50 },
    );
  });
});
