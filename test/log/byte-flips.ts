/**
 * The property both file-backed stores keep: whatever byte of a stored entry changes, reading
 * the session fails with a LogCorruptError at that entry's position. Each store says how a
 * byte of its own storage is changed.
 */
import fc from "fast-check";
import { v7 as uuidv7 } from "uuid";
import { expect } from "vitest";
import type { LogEntry } from "../../src/log/entries.js";
import { LogCorruptError } from "../../src/log/errors.js";
import type { Store } from "../../src/log/store.js";
import { logArbitrary } from "./arbitraries.js";
import { writeSession } from "./store-contract.js";

/** Where a byte changed: `pick`, `offset` choose the entry and the byte, `delta` is added to it. */
export interface ByteChange {
  sessionId: string;
  entries: readonly LogEntry[];
  pick: number;
  offset: number;
  delta: number;
}

/** Checks the property over random logs; `changeByte` changes one byte and returns the position it is in. */
export async function expectEveryByteChangeCaught(
  store: () => Store,
  changeByte: (change: ByteChange) => number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      logArbitrary(5),
      fc.nat(),
      fc.nat(),
      fc.integer({ min: 1, max: 255 }),
      async (entries, pick, offset, delta) => {
        const sessionId = uuidv7();
        await writeSession(store(), sessionId, entries);
        const position = changeByte({ sessionId, entries, pick, offset, delta });
        const error = await store()
          .readAll(sessionId)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LogCorruptError);
        expect((error as LogCorruptError).position).toBe(position);
      },
    ),
    { numRuns: 40 },
  );
}
