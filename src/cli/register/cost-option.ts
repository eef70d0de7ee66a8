/**
 * commander's parser of an amount in US dollars (`--cost`, `--budget-cost`).
 *
 * Boundary rule: parsing one option value; the daemon checks the budget it goes into.
 */
import { InvalidArgumentError } from "commander";

/** commander parser of a cost in USD: a number, 0 or more. */
export function costOption(value: string): number {
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed) || parsed < 0) {
    throw new InvalidArgumentError("expected an amount in USD, 0 or more");
  }
  return parsed;
}
