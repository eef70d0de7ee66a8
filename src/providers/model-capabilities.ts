/**
 * What a model accepts, decided once per profile: how "think harder" is expressed on the wire
 * (an OpenAI effort level, an Anthropic budget or adaptive effort, a Gemini budget or level),
 * which sampling parameters may be sent (and whether they survive thinking), and which
 * reasoning payloads the protocol must carry back. The rows live in `capability-table.ts`;
 * a profile's `capabilities` field overrides any of them. docs/providers.md lists the table.
 *
 * Boundary rule: types and pure decisions; no I/O.
 */
import type { ReasoningControl } from "../model/request-config.js";
import { unreachable } from "../model/unreachable.js";

/** The effort levels a request config may ask for. */
export type Effort = Extract<ReasoningControl, { effort: unknown }>["effort"];

/** Every effort level, weakest first. */
export const efforts: readonly Effort[] = ["minimal", "low", "medium", "high", "xhigh"];

/** Anthropic's adaptive effort values (`output_config.effort`). */
export type AnthropicEffort = "low" | "medium" | "high" | "xhigh" | "max";

/** OpenAI's effort values (`reasoning_effort`, `reasoning.effort`). */
export type OpenAiEffort = "minimal" | "low" | "medium" | "high" | "xhigh";

/** Gemini 3 thinking levels (`thinkingConfig.thinkingLevel`). */
export type GeminiThinkingLevel = "minimal" | "low" | "medium" | "high";

/** How a model is told how hard to think. */
export type ReasoningRule =
  /** The model takes no reasoning control: nothing is sent. */
  | { style: "none" }
  /** OpenAI style: `reasoning_effort` (Chat) or `reasoning.effort` (Responses) with these wire values. */
  | { style: "effort"; levels: Readonly<Record<Effort, OpenAiEffort>> }
  /** Anthropic manual thinking: `thinking: {type: "enabled", budget_tokens}`. */
  | { style: "anthropic_budget"; budgets: Readonly<Record<Effort, number>> }
  /** Anthropic adaptive thinking: `thinking: {type: "adaptive"}` + `output_config.effort`. */
  | { style: "anthropic_adaptive"; levels: Readonly<Record<Effort, AnthropicEffort>> }
  /** Gemini 2.5: `thinkingConfig.thinkingBudget`. */
  | { style: "gemini_budget"; budgets: Readonly<Record<Effort, number>> }
  /** Gemini 3: `thinkingConfig.thinkingLevel`. */
  | { style: "gemini_level"; levels: Readonly<Record<Effort, GeminiThinkingLevel>> };

export type ReasoningStyle = ReasoningRule["style"];

/** Every reasoning style, for validation. */
export const reasoningStyles: readonly ReasoningStyle[] = [
  "none",
  "effort",
  "anthropic_budget",
  "anthropic_adaptive",
  "gemini_budget",
  "gemini_level",
];

/** One row of the capability table, resolved for a model. */
export interface ModelCapabilities {
  /** The row's name (shown in docs and tests). */
  family: string;
  reasoning: ReasoningRule;
  temperature: boolean;
  topP: boolean;
  topK: boolean;
  /** Whether temperature/top_p/top_k may be sent while thinking is on. */
  samplingWithReasoning: boolean;
  /** responses: ask for `reasoning.encrypted_content` when `store` is false. */
  encryptedReasoning: boolean;
  /** chat_completions: assistant messages carry their `reasoning_content` back (DeepSeek). */
  reasoningContent: boolean;
  /**
   * gemini, and Gemini 3 over chat_completions: every function call of the current turn must
   * carry a thought signature.
   */
  thoughtSignatures: boolean;
  /** Whether temperature and top_p may be sent together (Claude 4.1 and later take only one). */
  temperatureWithTopP: boolean;
  /** chat_completions: ask for usage with `stream_options.include_usage` (Mistral's API refuses it). */
  streamUsage: boolean;
  /** chat_completions: send OpenRouter's `reasoning_details` back with the assistant message that had them. */
  reasoningDetails: boolean;
}

/** Profile overrides: any boolean of a row, and the reasoning style (with that style's default values). */
export interface CapabilityOverrides {
  reasoning?: ReasoningStyle;
  temperature?: boolean;
  topP?: boolean;
  topK?: boolean;
  samplingWithReasoning?: boolean;
  encryptedReasoning?: boolean;
  reasoningContent?: boolean;
  thoughtSignatures?: boolean;
  temperatureWithTopP?: boolean;
  streamUsage?: boolean;
  reasoningDetails?: boolean;
}

/** The override keys that hold booleans. */
export const booleanCapabilities = [
  "temperature",
  "topP",
  "topK",
  "samplingWithReasoning",
  "encryptedReasoning",
  "reasoningContent",
  "thoughtSignatures",
  "temperatureWithTopP",
  "streamUsage",
  "reasoningDetails",
] as const;

/** Effort levels passed through unchanged (OpenAI's own set on the newest models). */
export const allEffortLevels: Readonly<Record<Effort, OpenAiEffort>> = {
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
};

/** The three levels every OpenAI-compatible server knows (Ollama rejects `minimal` and `xhigh`). */
export const commonEffortLevels: Readonly<Record<Effort, OpenAiEffort>> = {
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "high",
};

/** Anthropic thinking budgets standing in for effort levels (the API's minimum is 1024). */
export const anthropicBudgets: Readonly<Record<Effort, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
  xhigh: 32_768,
};

/** Adaptive effort for Claude 4.6 (`max` is its strongest level). */
export const anthropicAdaptiveLevels: Readonly<Record<Effort, AnthropicEffort>> = {
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "max",
};

/** Gemini 2.5 budgets: within every 2.5 model's range (Flash-Lite's minimum is 512, Flash's maximum 24576). */
export const geminiBudgets: Readonly<Record<Effort, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
  xhigh: 24_576,
};

/** Gemini 3 Flash thinking levels. */
export const geminiFlashLevels: Readonly<Record<Effort, GeminiThinkingLevel>> = {
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "high",
};

/** The default values of a reasoning style, used when a profile overrides the style. */
function defaultReasoningRule(style: ReasoningStyle): ReasoningRule {
  switch (style) {
    case "none":
      return { style };
    case "effort":
      return { style, levels: commonEffortLevels };
    case "anthropic_budget":
      return { style, budgets: anthropicBudgets };
    case "anthropic_adaptive":
      return { style, levels: anthropicAdaptiveLevels };
    case "gemini_budget":
      return { style, budgets: geminiBudgets };
    case "gemini_level":
      return { style, levels: geminiFlashLevels };
    default:
      unreachable(style, "unknown reasoning style");
  }
}

/** A row with a profile's overrides applied. */
export function applyOverrides(
  row: ModelCapabilities,
  overrides: CapabilityOverrides | undefined,
): ModelCapabilities {
  if (overrides === undefined) return row;
  const result: ModelCapabilities = { ...row };
  if (overrides.reasoning !== undefined && overrides.reasoning !== row.reasoning.style) {
    result.reasoning = defaultReasoningRule(overrides.reasoning);
  }
  for (const key of booleanCapabilities) {
    const value = overrides[key];
    if (value !== undefined) result[key] = value;
  }
  return result;
}

/**
 * The effort level that best stands for a token budget (for models that take levels only):
 * the weakest level whose Anthropic budget covers it.
 */
function effortForBudget(budget: number): Effort {
  for (const effort of efforts) if (budget <= anthropicBudgets[effort]) return effort;
  return "xhigh";
}

/** Whether a request config turns thinking on for a model with these capabilities. */
function reasoningEnabled(control: ReasoningControl | undefined, capabilities: ModelCapabilities): boolean {
  return control !== undefined && capabilities.reasoning.style !== "none";
}

/** The sampling parameters a request may carry, with the names of the request config. */
export interface SamplingParameters {
  temperature?: number;
  top_p?: number;
  top_k?: number;
}

/** Temperature, top_p and top_k from a config, minus what the model rejects (alone or while thinking). */
export function samplingParameters(
  config: { temperature?: number; top_p?: number; top_k?: number; reasoning?: ReasoningControl },
  capabilities: ModelCapabilities,
): SamplingParameters {
  const allowed = !reasoningEnabled(config.reasoning, capabilities) || capabilities.samplingWithReasoning;
  const result: SamplingParameters = {};
  if (!allowed) return result;
  if (capabilities.temperature && config.temperature !== undefined) result.temperature = config.temperature;
  // A model that takes only one of them keeps the temperature (the parameter asked for more often).
  const topPAllowed = capabilities.temperatureWithTopP || result.temperature === undefined;
  if (capabilities.topP && topPAllowed && config.top_p !== undefined) result.top_p = config.top_p;
  if (capabilities.topK && config.top_k !== undefined) result.top_k = config.top_k;
  return result;
}

/** The effort wire value for a level-style rule; a budget becomes the nearest level. */
export function levelFor<Level extends string>(
  control: ReasoningControl,
  levels: Readonly<Record<Effort, Level>>,
): Level {
  return levels["effort" in control ? control.effort : effortForBudget(control.budget_tokens)];
}

/** The token budget for a budget-style rule; an effort level becomes the row's budget for it. */
export function budgetFor(control: ReasoningControl, budgets: Readonly<Record<Effort, number>>): number {
  return "budget_tokens" in control ? control.budget_tokens : budgets[control.effort];
}
