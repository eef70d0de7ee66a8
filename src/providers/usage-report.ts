/**
 * Building normalized `Usage` values from provider counters: absent counters stay absent
 * (never zero-filled), and `total_tokens` falls back to input + output.
 *
 * Boundary rule: pure functions.
 */
import type { Usage } from "../model/usage.js";

/** Provider counters already mapped to our meaning (input includes cached tokens). */
export interface UsageCounts {
  input?: number | undefined;
  output?: number | undefined;
  total?: number | undefined;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
  reasoning?: number | undefined;
}

/** A `Usage` with only the known fields set. */
export function usageFrom(counts: UsageCounts): Usage {
  const usage: Usage = {};
  if (counts.input !== undefined) usage.input_tokens = counts.input;
  if (counts.output !== undefined) usage.output_tokens = counts.output;
  const total =
    counts.total ??
    (counts.input !== undefined && counts.output !== undefined ? counts.input + counts.output : undefined);
  if (total !== undefined) usage.total_tokens = total;
  if (counts.cacheRead !== undefined) usage.cache_read_tokens = counts.cacheRead;
  if (counts.cacheWrite !== undefined) usage.cache_write_tokens = counts.cacheWrite;
  if (counts.reasoning !== undefined) usage.reasoning_tokens = counts.reasoning;
  return usage;
}

/** Whether a usage report carries any counter at all. */
export function hasUsage(usage: Usage): boolean {
  return Object.keys(usage).length > 0;
}
