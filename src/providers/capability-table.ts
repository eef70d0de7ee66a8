/**
 * The capability table: one row per (protocol, model family), chosen from the model name alone
 * (never the base URL, so a model keeps its rules behind a proxy or gateway). Families:
 * - OpenAI (Chat Completions and Responses): `o1`/`o3`/`o4` and `gpt-5`+ reason (no temperature
 *   or top_p; encrypted reasoning on Responses), `gpt-5-chat` and older GPTs do not; top_k is
 *   never sent to an OpenAI model. Effort levels follow each generation's accepted set.
 * - Other Chat Completions models (Ollama, llama.cpp, vLLM, DeepSeek, Mistral, ...): effort
 *   clamped to low/medium/high, every sampling parameter allowed; DeepSeek models get their
 *   reasoning back as `reasoning_content`.
 * - Anthropic: Claude 3.7 to 4.5 think with a budget and drop sampling while thinking; Claude
 *   4.6 thinks adaptively; Opus 4.7 and later, Mythos and Claude 5 think adaptively only and
 *   take no sampling parameters at all; older Claude models do not think.
 * - Gemini: 2.5 takes a thinking budget, 3 a thinking level (Pro: low/high only) and needs a
 *   thought signature on every function call of the current turn; 1.5/2.0 do not think.
 * Unknown models get their protocol's conservative default row.
 *
 * Boundary rule: pure functions of protocol and model name.
 */

import { unreachable } from "../model/unreachable.js";
import { bareModel } from "./bare-model.js";
import {
  type AnthropicEffort,
  allEffortLevels,
  anthropicAdaptiveLevels,
  anthropicBudgets,
  applyOverrides,
  type CapabilityOverrides,
  commonEffortLevels,
  type Effort,
  type GeminiThinkingLevel,
  geminiBudgets,
  geminiFlashLevels,
  type ModelCapabilities,
  type OpenAiEffort,
} from "./model-capabilities.js";
import type { ProviderProtocol } from "./provider-profile.js";

/** A row with everything allowed and nothing special; rows spell out where they differ. */
const baseRow: Omit<ModelCapabilities, "family" | "reasoning"> = {
  temperature: true,
  topP: true,
  topK: true,
  samplingWithReasoning: true,
  encryptedReasoning: false,
  reasoningContent: false,
  thoughtSignatures: false,
  temperatureWithTopP: true,
  streamUsage: true,
  reasoningDetails: true,
};

/** A row of `family` reasoning so: the base row but for the `differences` it spells out. */
function capabilityRow(
  family: string,
  reasoning: ModelCapabilities["reasoning"],
  differences: Partial<typeof baseRow> = {},
): ModelCapabilities {
  return { ...baseRow, family, reasoning, ...differences };
}

// ---- OpenAI -------------------------------------------------------------------------------

/** gpt-5 (5.0): minimal exists, xhigh does not. */
const gpt5Levels: Record<Effort, OpenAiEffort> = { ...allEffortLevels, xhigh: "high" };
/** gpt-5.1: none/low/medium/high. */
const gpt51Levels: Record<Effort, OpenAiEffort> = { ...allEffortLevels, minimal: "low", xhigh: "high" };
/** gpt-5.2 and later: none/low/medium/high/xhigh. */
const gpt52Levels: Record<Effort, OpenAiEffort> = { ...allEffortLevels, minimal: "low" };

function openAiReasoningRow(
  family: string,
  levels: Readonly<Record<Effort, OpenAiEffort>>,
): ModelCapabilities {
  return capabilityRow(
    family,
    { style: "effort", levels },
    { temperature: false, topP: false, topK: false, samplingWithReasoning: false, encryptedReasoning: true },
  );
}

/** The OpenAI row for a model name, or undefined when it is not an OpenAI model. */
function openAiRow(model: string): ModelCapabilities | undefined {
  const name = bareModel(model);
  if (/^o[134](-|$)/.test(name)) return openAiReasoningRow("openai-o-series", commonEffortLevels);
  const gpt = /^gpt-(\d+)(?:\.(\d+))?/.exec(name);
  if (gpt !== null) {
    const major = Number(gpt[1]);
    const minor = Number(gpt[2] ?? "0");
    if (major >= 5 && !/-chat/.test(name)) {
      if (major === 5 && minor === 0) return openAiReasoningRow("openai-gpt-5", gpt5Levels);
      if (major === 5 && minor === 1) return openAiReasoningRow("openai-gpt-5.1", gpt51Levels);
      return openAiReasoningRow("openai-gpt-5.2+", gpt52Levels);
    }
    return capabilityRow("openai-gpt-chat", { style: "none" }, { topK: false });
  }
  if (/^(chatgpt|codex-mini)/.test(name)) {
    return name.startsWith("codex")
      ? openAiReasoningRow("openai-o-series", commonEffortLevels)
      : capabilityRow("openai-gpt-chat", { style: "none" }, { topK: false });
  }
  return undefined;
}

// ---- Chat Completions ---------------------------------------------------------------------

function chatCompletionsRow(model: string): ModelCapabilities {
  const openAi = openAiRow(model);
  if (openAi !== undefined) return openAi;
  const name = bareModel(model);
  if (name.includes("deepseek")) {
    // DeepSeek maps every level itself (its docs list minimal..xhigh).
    // top_k is no DeepSeek parameter (nor Kimi's, nor Google's endpoint's): OpenAI's schema has none.
    return capabilityRow(
      "deepseek",
      { style: "effort", levels: allEffortLevels },
      { reasoningContent: true, topK: false },
    );
  }
  if (isKimiThinking(name)) {
    // "thinking is enabled but reasoning_content is missing in assistant tool call message".
    return capabilityRow(
      "kimi-thinking",
      { style: "effort", levels: commonEffortLevels },
      { reasoningContent: true, topK: false },
    );
  }
  if (Number(/^gemini-(\d+)/.exec(name)?.[1] ?? "0") >= 3) {
    // Google's OpenAI-compatible endpoint carries Gemini 3's signatures in `extra_content`.
    return capabilityRow(
      "gemini-3-compat",
      { style: "effort", levels: commonEffortLevels },
      { thoughtSignatures: true, topK: false },
    );
  }
  return capabilityRow("openai-compatible", { style: "effort", levels: commonEffortLevels });
}

/**
 * Kimi models that think in tool loops and need their reasoning back: K2 Thinking, K2.5 and
 * later ("k2.5", "k2p5", "K2.6", "k3").
 */
function isKimiThinking(name: string): boolean {
  const version = /kimi-k(\d+)(?:[.p](\d+))?/.exec(name);
  if (version === null) return false;
  const major = Number(version[1]);
  const minor = Number(version[2] ?? "0");
  return name.includes("thinking") || major > 2 || (major === 2 && minor >= 5);
}

// ---- Responses ----------------------------------------------------------------------------

function responsesRow(model: string): ModelCapabilities {
  return (
    openAiRow(model) ?? capabilityRow("responses-other", { style: "effort", levels: commonEffortLevels })
  );
}

// ---- Anthropic ----------------------------------------------------------------------------

/** Major and minor version of a Claude model name (`claude-sonnet-4-5-20250929`, `claude-3-7-sonnet`). */
function claudeVersion(model: string): { major: number; minor: number } | undefined {
  const name = bareModel(model).replace(/-\d{8}$/, "");
  const numbers = name
    .split(/[-.@]/)
    .filter((token) => /^\d{1,2}$/.test(token))
    .map(Number);
  if (numbers.length === 0) return undefined;
  return { major: numbers[0]!, minor: numbers[1] ?? 0 };
}

/** Adaptive-only models know `xhigh` as a level of its own, below `max`. */
const adaptiveOnlyLevels: Record<Effort, AnthropicEffort> = { ...anthropicAdaptiveLevels, xhigh: "xhigh" };

function anthropicRow(model: string): ModelCapabilities {
  const name = bareModel(model);
  const version = claudeVersion(name);
  const adaptiveOnly =
    name.includes("mythos") ||
    (version !== undefined &&
      (version.major >= 5 || (version.major === 4 && version.minor >= 7 && name.includes("opus"))));
  if (adaptiveOnly) {
    return capabilityRow(
      "claude-adaptive-only",
      { style: "anthropic_adaptive", levels: adaptiveOnlyLevels },
      { temperature: false, topP: false, topK: false, samplingWithReasoning: false },
    );
  }
  // Claude 4.1 and later answer 400 "`temperature` and `top_p` cannot both be specified for this model".
  const onlyOneSampler =
    version !== undefined && (version.major > 4 || (version.major === 4 && version.minor >= 1));
  if (version !== undefined && version.major === 4 && version.minor >= 6) {
    // `max` is Opus-only.
    const levels: Record<Effort, AnthropicEffort> = name.includes("opus")
      ? anthropicAdaptiveLevels
      : { ...anthropicAdaptiveLevels, xhigh: "high" };
    return capabilityRow(
      "claude-4.6",
      { style: "anthropic_adaptive", levels },
      { temperatureWithTopP: false, samplingWithReasoning: false },
    );
  }
  if (version !== undefined && (version.major < 3 || (version.major === 3 && version.minor < 7))) {
    return capabilityRow("claude-no-thinking", { style: "none" });
  }
  return capabilityRow(
    "claude-budget",
    { style: "anthropic_budget", budgets: anthropicBudgets },
    { temperatureWithTopP: !onlyOneSampler, samplingWithReasoning: false },
  );
}

// ---- Gemini -------------------------------------------------------------------------------

/** Gemini 3 Pro knows only low and high. */
const geminiProLevels: Record<Effort, GeminiThinkingLevel> = {
  minimal: "low",
  low: "low",
  medium: "high",
  high: "high",
  xhigh: "high",
};

function geminiRow(model: string): ModelCapabilities {
  const name = bareModel(model);
  const version = /^gemini-(\d+)(?:\.(\d+))?/.exec(name);
  const major = version === null ? undefined : Number(version[1]);
  const minor = version === null ? 0 : Number(version[2] ?? "0");
  if (major !== undefined && major >= 3) {
    const pro = name.includes("pro");
    return capabilityRow(
      pro ? "gemini-3-pro" : "gemini-3",
      { style: "gemini_level", levels: pro ? geminiProLevels : geminiFlashLevels },
      { thoughtSignatures: true },
    );
  }
  if (major !== undefined && (major < 2 || (major === 2 && minor < 5))) {
    return capabilityRow("gemini-no-thinking", { style: "none" });
  }
  // 2.5, and unknown names: Gemini 3 still accepts a thinking budget, Gemini 2.5 takes nothing else.
  return capabilityRow("gemini-2.5", { style: "gemini_budget", budgets: geminiBudgets });
}

/** The table row for a protocol and model, with a profile's overrides applied. */
export function capabilitiesFor(
  protocol: ProviderProtocol,
  model: string,
  overrides?: CapabilityOverrides,
): ModelCapabilities {
  return applyOverrides(rowFor(protocol, model), overrides);
}

function rowFor(protocol: ProviderProtocol, model: string): ModelCapabilities {
  switch (protocol) {
    case "chat_completions":
      return chatCompletionsRow(model);
    case "responses":
      return responsesRow(model);
    case "anthropic":
      return anthropicRow(model);
    case "gemini":
      return geminiRow(model);
    default:
      unreachable(protocol, "unknown protocol");
  }
}
