/**
 * The memo idiom of the caches (prepared statements, provider clients, token counts, refused
 * fields): a key's value, made and stored the first time it is asked for.
 *
 * Boundary rule: works on any Map or WeakMap; what a value is, and when a cache is dropped, is
 * its owner's.
 */

/** The part of a Map or WeakMap a cache needs. */
interface Cache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** The value of `key` in `cache`, made with `make` and stored first when it has none. */
export function cachedEntry<K, V>(cache: Cache<K, V>, key: K, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}
