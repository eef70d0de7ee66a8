/**
 * What a profile's model can hold and what it costs: its context window (prompt and output
 * together), its output limit, the fill at which a session compacts its context, and its
 * prices in USD per million tokens (input, output, cache read, cache write). A profile's own
 * values win; otherwise a row of the table below, chosen from the model name; otherwise a
 * conservative default with a warning that says what to set.
 *
 * The table holds the vendors' published figures as known when it was written; prices change,
 * so a profile that needs exact costs sets `prices` itself. Nothing is looked up on a network.
 *
 * Boundary rule: pure functions of a profile.
 */
import { bareModel } from "./bare-model.js";
import type { ProviderProfile } from "./provider-profile.js";

/** USD per million tokens. `cacheRead`/`cacheWrite` price cached prompt tokens read and written. */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ModelLimits {
  /** Tokens of prompt and output together the model takes. */
  contextWindow: number;
  /** Largest output the model may be asked for. */
  maxOutputTokens: number;
  /** Fill (prompt tokens / context window) from which the context is compacted before a request. */
  compactThreshold: number;
  prices: ModelPrices | null;
  /** Where the window came from: the profile, the table, or the conservative default. */
  windowSource: "profile" | "table" | "default";
  /** What the user should know (an unknown model's window or price). */
  warnings: string[];
}

/** The context window assumed for a model the table does not know (small on purpose). */
export const defaultContextWindow = 32_768;
/** The output limit assumed for a model the table does not know. */
const defaultMaxOutputTokens = 4_096;
/** Compact when the prompt reaches this share of the window (see docs/providers.md). */
export const defaultCompactThreshold = 0.8;

/**
 * One row of the table: the model-name pattern, the context window, the output limit and, where
 * known, the prices (input, output, cache read, cache write; USD per million tokens).
 */
type LimitRow = readonly [
  pattern: RegExp,
  contextWindow: number,
  maxOutputTokens: number,
  prices?: readonly [number, number, number, number],
];

/** First match wins, so narrower names come before broader ones. */
const rows: readonly LimitRow[] = [
  // OpenAI (cached input is read at a discount; writes cost the input price).
  [/^gpt-5(\.\d+)?-chat/, 128_000, 16_384, [1.25, 10, 0.125, 1.25]],
  [/^gpt-5(\.\d+)?-nano/, 400_000, 128_000, [0.05, 0.4, 0.005, 0.05]],
  [/^gpt-5(\.\d+)?-mini/, 400_000, 128_000, [0.25, 2, 0.025, 0.25]],
  [/^gpt-5\.[2-9]/, 400_000, 128_000, [1.75, 14, 0.175, 1.75]],
  [/^gpt-5/, 400_000, 128_000, [1.25, 10, 0.125, 1.25]],
  [/^gpt-4\.1-nano/, 1_047_576, 32_768, [0.1, 0.4, 0.025, 0.1]],
  [/^gpt-4\.1-mini/, 1_047_576, 32_768, [0.4, 1.6, 0.1, 0.4]],
  [/^gpt-4\.1/, 1_047_576, 32_768, [2, 8, 0.5, 2]],
  [/^gpt-4o-mini/, 128_000, 16_384, [0.15, 0.6, 0.075, 0.15]],
  [/^(gpt-4o|chatgpt-4o)/, 128_000, 16_384, [2.5, 10, 1.25, 2.5]],
  [/^o[34]-mini/, 200_000, 100_000, [1.1, 4.4, 0.275, 1.1]],
  [/^o3/, 200_000, 100_000, [2, 8, 0.5, 2]],
  [/^o1/, 200_000, 100_000, [15, 60, 7.5, 15]],
  // Anthropic (cache writes at 1.25x input, the 5-minute cache).
  [/^claude-opus-4-([5-9]|\d\d)/, 200_000, 64_000, [5, 25, 0.5, 6.25]],
  [/^claude-opus-4/, 200_000, 32_000, [15, 75, 1.5, 18.75]],
  [/^claude-sonnet-4/, 200_000, 64_000, [3, 15, 0.3, 3.75]],
  [/^claude-3-7-sonnet/, 200_000, 64_000, [3, 15, 0.3, 3.75]],
  [/^claude-haiku-4/, 200_000, 64_000, [1, 5, 0.1, 1.25]],
  [/^claude-3-5-haiku/, 200_000, 8_192, [0.8, 4, 0.08, 1]],
  [/^claude-/, 200_000, 8_192],
  // Gemini (prices for prompts up to 200k tokens).
  [/^gemini-3(\.\d+)?-pro/, 1_048_576, 65_536, [2, 12, 0.2, 2]],
  [/^gemini-3(\.\d+)?-flash/, 1_048_576, 65_536, [0.5, 3, 0.05, 0.5]],
  [/^gemini-2\.5-pro/, 1_048_576, 65_536, [1.25, 10, 0.125, 1.25]],
  [/^gemini-2\.5-flash-lite/, 1_048_576, 65_536, [0.1, 0.4, 0.01, 0.1]],
  [/^gemini-2\.5-flash/, 1_048_576, 65_536, [0.3, 2.5, 0.03, 0.3]],
  [/^gemini-2\.0-flash/, 1_048_576, 8_192, [0.1, 0.4, 0.025, 0.1]],
  [/^gemini-/, 1_048_576, 8_192],
  // DeepSeek.
  [/^deepseek-(chat|reasoner)/, 128_000, 8_192, [0.28, 0.42, 0.028, 0.28]],
];

/** The table's row for a model, or undefined for a model it does not know. */
function rowFor(model: string): LimitRow | undefined {
  const bare = bareModel(model);
  return rows.find(([pattern]) => pattern.test(bare));
}

/** The limits and prices of a profile's model. */
export function modelLimits(profile: ProviderProfile): ModelLimits {
  const [, tableWindow, tableOutput = defaultMaxOutputTokens, tablePrices] = rowFor(profile.model) ?? [];
  const warnings: string[] = [];
  let windowSource: ModelLimits["windowSource"] = "table";
  let contextWindow = tableWindow;
  if (profile.contextWindow !== undefined) {
    contextWindow = profile.contextWindow;
    windowSource = "profile";
  } else if (contextWindow === undefined) {
    contextWindow = defaultContextWindow;
    windowSource = "default";
    warnings.push(
      `the context window of model "${profile.model}" is not known; assuming ${defaultContextWindow} tokens (set "contextWindow" in its profile)`,
    );
  }
  const maxOutputTokens = Math.min(profile.maxOutputTokens ?? tableOutput, contextWindow);
  let prices: ModelPrices | null = null;
  if (profile.prices !== undefined) prices = { ...profile.prices };
  else if (tablePrices !== undefined) {
    const [input, output, cacheRead, cacheWrite] = tablePrices;
    prices = { input, output, cacheRead, cacheWrite };
  }
  return {
    contextWindow,
    maxOutputTokens,
    compactThreshold: profile.compactThreshold ?? defaultCompactThreshold,
    prices,
    windowSource,
    warnings,
  };
}

/** Token counts of one or more requests, as the cost is computed from them. */
export interface BilledTokens {
  /** The whole prompt, cached tokens included. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The cost in USD of `tokens` at `prices`. */
export function costOf(tokens: BilledTokens, prices: ModelPrices): number {
  const fresh = Math.max(0, tokens.input - tokens.cacheRead - tokens.cacheWrite);
  const micro =
    fresh * prices.input +
    tokens.cacheRead * prices.cacheRead +
    tokens.cacheWrite * prices.cacheWrite +
    tokens.output * prices.output;
  return micro / 1_000_000;
}
