/**
 * The end of an exhaustive switch: a value its type rules out, which only data the types did not
 * check can bring (a newer peer, a cast). The type system proves the call unreachable; at run
 * time it fails loudly, naming the value.
 *
 * Boundary rule: a pure function, for every layer.
 */

/** Throw `what` followed by the value (a string as it is, anything else as JSON). */
export function unreachable(value: never, what: string): never {
  const shown: unknown = value;
  throw new Error(`${what} ${typeof shown === "string" ? shown : JSON.stringify(shown)}`);
}
