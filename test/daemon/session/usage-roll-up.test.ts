import { describe, expect, it } from "vitest";
import type { SessionUsage } from "../../../src/api/session-snapshot.js";
import { costTotal, usageCost, usageTotal } from "../../../src/daemon/session/usage-roll-up.js";
import type { DescendantUsage } from "../../../src/daemon/storage/descendant-usage.js";
import type { ModelPrices } from "../../../src/providers/model-limits.js";

function usage(prompt: number, completion: number, cached = 0): SessionUsage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    cached_prompt_tokens: cached,
    total_tokens: prompt + completion,
  };
}

/** USD per million tokens. */
const big: ModelPrices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const small: ModelPrices = { input: 0.25, output: 1.25, cacheRead: 0.025, cacheWrite: 0.3 };

const pricesOf = (profile: string | null, model: string | null): ModelPrices | null => {
  if (profile === null && model === null) return big;
  if (model === "small") return small;
  return null;
};

const children: DescendantUsage[] = [
  { providerProfile: null, model: null, usage: usage(1_000_000, 100_000, 400_000) },
  { providerProfile: "cheap", model: "small", usage: usage(2_000_000, 1_000_000) },
];

describe("a session's usage and cost with its task descendants", () => {
  it("prices usage per million tokens, cached prompt tokens at the cache-read price, to the micro-dollar", () => {
    // 600k fresh × 3 + 400k cached × 0.3 + 100k output × 15 = 1.8 + 0.12 + 1.5
    expect(usageCost(usage(1_000_000, 100_000, 400_000), big)).toBe(3.42);
    expect(usageCost(usage(1, 1), small)).toBe(0.000002);
  });

  it("sums the tokens of the session and every descendant", () => {
    expect(usageTotal(usage(10, 5), children)).toEqual({
      prompt_tokens: 3_000_010,
      completion_tokens: 1_100_005,
      cached_prompt_tokens: 400_000,
      total_tokens: 4_100_015,
    });
    expect(usageTotal(usage(10, 5), [])).toEqual(usage(10, 5));
  });

  it("adds each descendant's cost at the prices of its own profile and model", () => {
    // 3.42 (default profile) + 2M × 0.25 + 1M × 1.25 = 3.42 + 0.5 + 1.25
    expect(costTotal(1, children, pricesOf)).toBe(6.17);
    expect(costTotal(1, [], pricesOf)).toBe(1);
  });

  it("is unknown when the session's own cost is, or a descendant that used tokens has no known prices", () => {
    expect(costTotal(null, children, pricesOf)).toBeNull();
    const unpriced = { providerProfile: "other", model: "unknown", usage: usage(1, 1) };
    expect(costTotal(1, [...children, unpriced], pricesOf)).toBeNull();
    // One that used nothing costs nothing, priced or not.
    expect(costTotal(1, [{ ...unpriced, usage: usage(0, 0) }], pricesOf)).toBe(1);
  });
});
