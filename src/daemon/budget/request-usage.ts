/**
 * What one model request used, as its answer's log entry records it (`RequestUsage`): the
 * provider's token counts, the profile, the cost at the profile's prices (when known) and the
 * schedule the turn ran for.
 *
 * Boundary rule: a pure function; the turn's conversation puts the result on the entry.
 */
import type { RequestUsage } from "../../log/entries.js";
import type { Usage } from "../../model/usage.js";
import { costOf, type ModelPrices } from "../../providers/model-limits.js";

/** The usage record of a request to `profile` at `prices` (null: none known); null when the provider reported none. */
export function requestUsageOf(
  usage: Usage,
  profile: string,
  prices: ModelPrices | null,
  schedule: string | null,
): RequestUsage | null {
  if (Object.keys(usage).length === 0) return null;
  const record: RequestUsage = {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cache_read_tokens: usage.cache_read_tokens ?? 0,
    cache_write_tokens: usage.cache_write_tokens ?? 0,
    profile,
  };
  if (prices !== null) {
    record.cost_usd = costOf(
      {
        input: record.input_tokens,
        output: record.output_tokens,
        cacheRead: record.cache_read_tokens,
        cacheWrite: record.cache_write_tokens,
      },
      prices,
    );
  }
  if (schedule !== null) record.schedule = schedule;
  return record;
}
