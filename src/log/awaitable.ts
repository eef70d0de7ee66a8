/**
 * Values that are plain on a synchronous connection (better-sqlite3) and promises on an
 * asynchronous one (node-postgres), so one composition of steps serves both.
 *
 * Boundary rule: `andThen` never adds an await to a plain value: a SQLite write composed with it
 * stays synchronous, as its transaction requires.
 */

/** A value now, or later. */
export type Awaitable<T> = T | Promise<T>;

/** `next(value)`: at once when `value` is plain, once it resolves when it is a promise. */
export function andThen<T, U>(value: Awaitable<T>, next: (value: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
