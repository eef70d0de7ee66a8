/**
 * commander's parser of the options that take a count or a duration (`--limit`, `--tail`,
 * `--timeout`…).
 *
 * Boundary rule: parsing one option value; the commands decide what the number means.
 */
import { InvalidArgumentError } from "commander";

/** commander parser of a whole number (0 included); refuses anything else with a usage error. */
export function wholeNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new InvalidArgumentError("expected a whole number");
  return parsed;
}
