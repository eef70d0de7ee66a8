/**
 * A profile's context window, output limit, compaction threshold and prices: the profile's own
 * values win, then the model table's, then a small default with a warning; the config fields
 * are checked like every other profile field.
 */
import { describe, expect, it } from "vitest";
import {
  costOf,
  defaultCompactThreshold,
  defaultContextWindow,
  modelLimits,
} from "../../src/providers/model-limits.js";
import { validateProviderProfile } from "../../src/providers/provider-profile.js";

describe("modelLimits", () => {
  it("knows common model families, whatever the vendor prefix", () => {
    expect(modelLimits({ protocol: "anthropic", model: "claude-sonnet-4-5" })).toMatchObject({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      windowSource: "table",
      prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      warnings: [],
    });
    expect(modelLimits({ protocol: "chat_completions", model: "openai/gpt-4o-mini" }).contextWindow).toBe(
      128_000,
    );
    expect(modelLimits({ protocol: "gemini", model: "gemini-2.5-flash-lite" }).prices?.input).toBe(0.1);
    expect(modelLimits({ protocol: "responses", model: "gpt-5-mini" }).prices?.output).toBe(2);
  });

  it("assumes a small window for an unknown model and says what to set", () => {
    const limits = modelLimits({ protocol: "chat_completions", model: "qwen3:8b" });
    expect(limits.contextWindow).toBe(defaultContextWindow);
    expect(limits.windowSource).toBe("default");
    expect(limits.prices).toBeNull();
    expect(limits.warnings[0]).toContain('set "contextWindow" in its profile');
  });

  it("takes the profile's own window, threshold, output limit and prices first", () => {
    const limits = modelLimits({
      protocol: "anthropic",
      model: "claude-sonnet-4-5",
      contextWindow: 50_000,
      compactThreshold: 0.6,
      maxOutputTokens: 1_000,
      prices: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 1.5 },
    });
    expect(limits).toMatchObject({
      contextWindow: 50_000,
      compactThreshold: 0.6,
      maxOutputTokens: 1_000,
      windowSource: "profile",
      prices: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 1.5 },
    });
    expect(modelLimits({ protocol: "gemini", model: "gemini-2.5-pro" }).compactThreshold).toBe(
      defaultCompactThreshold,
    );
  });

  it("prices cached reads and writes apart from fresh input", () => {
    const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(costOf({ input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0 }, prices)).toBeCloseTo(3);
    expect(
      costOf({ input: 1_000_000, output: 1_000_000, cacheRead: 500_000, cacheWrite: 100_000 }, prices),
    ).toBeCloseTo(0.4 * 3 + 0.5 * 0.3 + 0.1 * 3.75 + 15);
  });
});

describe("the context fields of a profile", () => {
  const base = { protocol: "anthropic", model: "claude-sonnet-4-5", apiKey: "k" };

  it("are read and checked", () => {
    const profile = validateProviderProfile({
      ...base,
      contextWindow: 100_000,
      compactThreshold: 0.7,
      prices: { input: 3, output: 15 },
    });
    expect(profile).toMatchObject({
      contextWindow: 100_000,
      compactThreshold: 0.7,
      prices: { input: 3, output: 15, cacheRead: 3, cacheWrite: 3 },
    });
    expect(() => validateProviderProfile({ ...base, contextWindow: 10 })).toThrow(/contextWindow/);
    expect(() => validateProviderProfile({ ...base, compactThreshold: 1.5 })).toThrow(/compactThreshold/);
    expect(() => validateProviderProfile({ ...base, prices: { input: 3 } })).toThrow(
      /needs "input" and "output"/,
    );
    expect(() => validateProviderProfile({ ...base, prices: { input: 3, output: 1, cache: 1 } })).toThrow(
      /unknown field "cache"/,
    );
  });
});
