/**
 * Resources a `describe` starts once before its tests and stops after them.
 */
import { afterAll, beforeAll } from "vitest";

/**
 * Starts `start()` before the enclosing `describe`'s tests and `stop`s it after them; the
 * returned object reads through to what started (read it inside tests and hooks, not at
 * describe time).
 */
export function startedForDescribe<T extends object>(
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
  // A proxy so callers keep one handle although the resources exist only once `beforeAll` ran.
  return new Proxy({} as T, {
    get(_target, key) {
      if (started === undefined)
        throw new Error(`${String(key)} is read before the describe's resources started`);
      return Reflect.get(started, key);
    },
  });
}
