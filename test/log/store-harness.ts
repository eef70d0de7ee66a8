/**
 * The storage a store contract runs on, fresh for each test: the harness `makeStore` gives,
 * its store, and the other stores a test opens on the same storage, all closed after the test
 * before the harness cleans up.
 */
import { startedForEachTest } from "../support/started-for-describe.js";

/** What a contract's harness gives at least: a store and a way to remove its storage. */
interface Harness {
  store: { close(): Promise<void> };
  cleanup(): Promise<void>;
}

/** The current test's harness, its store, and the list a test adds the other stores it opens to. */
export function harnessForEachTest<H extends Harness>(
  makeStore: () => Promise<H>,
): { readonly harness: H; readonly store: H["store"]; readonly others: H["store"][] } {
  return startedForEachTest(
    async () => {
      const harness = await makeStore();
      return { harness, store: harness.store, others: [] as H["store"][] };
    },
    async ({ harness, store, others }) => {
      for (const other of others.splice(0)) await other.close();
      await store.close();
      await harness.cleanup();
    },
  );
}
