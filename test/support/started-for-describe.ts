/**
 * Resources a `describe` starts once before its tests and stops after them, or starts anew for
 * each of its tests.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";

/**
 * Starts `start()` before the enclosing `describe`'s tests and `stop`s it after them; the
 * returned object reads through to what started (read it inside tests and hooks, not at
 * describe time).
 */
export function startedForDescribe<T extends object>(
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
): T {
  return startedAround(beforeAll, afterAll, start, stop);
}

/**
 * Starts `start()` before each test of the enclosing `describe` (or file) and `stop`s it after
 * that test; the returned object reads and writes through to what started for the current test.
 */
export function startedForEachTest<T extends object>(
  start: () => T | Promise<T>,
  stop: (started: T) => void | Promise<void>,
): T {
  return startedAround(beforeEach, afterEach, start, stop);
}

function startedAround<T extends object>(
  before: (hook: () => Promise<void>) => void,
  after: (hook: () => Promise<void>) => void,
  start: () => T | Promise<T>,
  stop: (started: T) => void | Promise<void>,
): T {
  let started: T | undefined;
  before(async () => {
    started = await start();
  });
  after(async () => {
    if (started !== undefined) await stop(started);
    started = undefined;
  });
  const current = (key: string | symbol): T => {
    if (started === undefined) throw new Error(`${String(key)} is read before its resources started`);
    return started;
  };
  // A proxy so callers keep one handle although the resources exist only once the hook ran.
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(current(key), key),
    set: (_target, key, value) => Reflect.set(current(key), key, value),
  });
}
