/**
 * One writer of a race between processes on one session: compare-and-append of user inputs,
 * re-reading the head and retrying whenever another writer got there first. Used in the test
 * process and in the child process it races (fixtures/append-worker.ts) alike.
 */
import { hashEntry } from "../../src/log/entry-hash.js";
import { AppendConflictError } from "../../src/log/errors.js";
import type { Store } from "../../src/log/store.js";
import { userMessage } from "../../src/model/items.js";

/** Append `count` user inputs `"<label> <i>"` to `sessionId` in order; resolves to the races lost. */
export async function appendRacing(
  store: Store,
  sessionId: string,
  count: number,
  label: string,
): Promise<number> {
  let conflicts = 0;
  for (let i = 0; i < count; ) {
    const head = await store.readHead(sessionId);
    const entry = hashEntry(head?.hash ?? null, {
      kind: "user_input",
      ts: Date.now(),
      item: userMessage(`${label} ${i}`),
    });
    try {
      await store.append(sessionId, [entry]);
      i++;
    } catch (error) {
      if (!(error instanceof AppendConflictError)) throw error;
      conflicts++;
    }
  }
  return conflicts;
}
