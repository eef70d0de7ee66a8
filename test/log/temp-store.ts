/**
 * A log store in a fresh directory for each test of a backend's own tests (beyond the contract):
 * closed and removed after the test, with the corruption a read of a session reports.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { LogCorruptError } from "../../src/log/errors.js";
import type { Store } from "../../src/log/store.js";
import { rejectionOf } from "../support/rejection.js";
import { startedForEachTest } from "../support/started-for-describe.js";

/** The test's directory and store (a test may put another store in its place). */
export interface TempStore<S extends Store> {
  readonly dir: string;
  store: S;
  /** The LogCorruptError reading `sessionId` fails with (naming that session). */
  corruptionOf(sessionId: string): Promise<LogCorruptError>;
}

/** A directory named from `prefix` and the store `open` makes in it, for each test. */
export function withTempStore<S extends Store>(prefix: string, open: (dir: string) => S): TempStore<S> {
  return startedForEachTest(
    () => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      const current: TempStore<S> = {
        dir,
        store: open(dir),
        async corruptionOf(sessionId) {
          const error = await rejectionOf(
            current.store.readAll(sessionId),
            (e) => e instanceof LogCorruptError,
          );
          expect(error.sessionId).toBe(sessionId);
          return error;
        },
      };
      return current;
    },
    async ({ dir, store }) => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  );
}
