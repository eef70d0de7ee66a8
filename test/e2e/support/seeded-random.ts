/**
 * Random choices from a seed, so a run that failed can be replayed with the same choices.
 *
 * Boundary rule: test support; the generator is pure-rand's xoroshiro128+, used in place.
 */
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";

/** A seeded source of integers, coin flips and picks. */
export class SeededRandom {
  readonly #rng: RandomGenerator;

  constructor(readonly seed: number) {
    this.#rng = xoroshiro128plus(seed);
  }

  /** An integer between `min` and `max`, both included. */
  int(min: number, max: number): number {
    return uniformInt(this.#rng, min, max);
  }

  /** True with probability `p` (to the nearest thousandth). */
  chance(p: number): boolean {
    return this.int(0, 999) < Math.round(p * 1000);
  }

  /** One of `items` (which must not be empty). */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }
}

/** The seed from `SKEIN_TORTURE_SEED` when set (to replay a run), else a fresh one. */
export function seedFromEnvironment(): number {
  const given = process.env.SKEIN_TORTURE_SEED;
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`SKEIN_TORTURE_SEED must be an integer, not ${given}`);
    return seed;
  }
  return Math.floor(Math.random() * 2 ** 31);
}
