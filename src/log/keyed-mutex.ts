/**
 * In-process mutual exclusion per key (a promise chain per key), so that operations on one
 * session never overlap inside this process while operations on different sessions do.
 *
 * Boundary rule: process-local only; cross-process exclusion is `file-lock.ts`.
 */

const tails = new Map<string, Promise<void>>();

/** Run `task` once every earlier task queued under `key` (in this process) has settled. */
export async function withKeyedMutex<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  await previous;
  try {
    return await task();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
