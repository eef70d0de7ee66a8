/**
 * What a session's snapshot says it and its `task` descendants used and cost: the tokens summed,
 * and the cost of each part at the prices of the profile and model it ran with (a child may run
 * with another model than its parent). A total whose part has no known prices is unknown (null)
 * rather than understated; a part that used no tokens costs nothing, priced or not.
 *
 * Boundary rule: pure; the prices are looked up by the caller's function.
 */
import type { SessionUsage } from "../../api/session-snapshot.js";
import { costOf, type ModelPrices } from "../../providers/model-limits.js";
import type { DescendantUsage } from "../storage/descendant-usage.js";

/** The prices of a profile and model (null: not known). */
export type PricesOf = (providerProfile: string | null, model: string | null) => ModelPrices | null;

/** The cost in USD of `usage` at `prices`, to the micro-dollar (the snapshot's `cost_usd`). */
export function usageCost(usage: SessionUsage, prices: ModelPrices): number {
  const cost = costOf(
    {
      input: usage.prompt_tokens,
      output: usage.completion_tokens,
      cacheRead: usage.cached_prompt_tokens,
      cacheWrite: 0,
    },
    prices,
  );
  return Math.round(cost * 1_000_000) / 1_000_000;
}

/** No tokens used. */
export const noUsage: SessionUsage = Object.freeze({
  prompt_tokens: 0,
  completion_tokens: 0,
  cached_prompt_tokens: 0,
  total_tokens: 0,
});

/** The token counts of `a` and `b` added. */
export function addSessionUsage(a: SessionUsage, b: SessionUsage): SessionUsage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    cached_prompt_tokens: a.cached_prompt_tokens + b.cached_prompt_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

/** `own` plus every descendant's usage. */
export function usageTotal(own: SessionUsage, descendants: readonly DescendantUsage[]): SessionUsage {
  return descendants.reduce((total, { usage }) => addSessionUsage(total, usage), own);
}

/** `ownCost` plus every descendant's cost at its own prices; null when any part's cost is unknown. */
export function costTotal(
  ownCost: number | null,
  descendants: readonly DescendantUsage[],
  pricesOf: PricesOf,
): number | null {
  if (ownCost === null) return null;
  let total = ownCost;
  for (const part of descendants) {
    if (part.usage.total_tokens === 0) continue;
    const prices = pricesOf(part.providerProfile, part.model);
    if (prices === null) return null;
    total += usageCost(part.usage, prices);
  }
  return Math.round(total * 1_000_000) / 1_000_000;
}
