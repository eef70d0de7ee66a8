/**
 * The (protocol, family) targets, request configs and tools the builders' property tests share
 * (builder-totality.property.test.ts, sdk-declared-fields.test.ts).
 *
 * Boundary rule: test support; fast-check arbitraries and plain data.
 */
import fc from "fast-check";
import type { RequestConfig } from "../../src/model/request-config.js";
import type { ToolMeta } from "../../src/model/tools.js";
import type { ProviderProfile } from "../../src/providers/provider-profile.js";

/** A (protocol, family) whose builder the property tests exercise. */
export interface BuilderTarget {
  family: string;
  profile: ProviderProfile;
}

const local = "http://127.0.0.1:9";

/** One profile per (protocol, model family), with the servers whose rules differ (Mistral). */
export const builderTargets: BuilderTarget[] = [
  {
    family: "chat openai-gpt-5",
    profile: { protocol: "chat_completions", model: "gpt-5-mini", baseUrl: local },
  },
  {
    family: "chat openai-gpt-chat",
    profile: { protocol: "chat_completions", model: "gpt-4.1", baseUrl: local },
  },
  {
    family: "chat deepseek",
    profile: { protocol: "chat_completions", model: "deepseek-reasoner", baseUrl: local },
  },
  {
    family: "chat kimi-thinking",
    profile: { protocol: "chat_completions", model: "kimi-k2.5", baseUrl: local },
  },
  {
    family: "chat gemini-3 (Google)",
    profile: { protocol: "chat_completions", model: "gemini-3-flash-preview", baseUrl: local },
  },
  {
    family: "chat gemini-3 (OpenRouter)",
    profile: { protocol: "chat_completions", model: "google/gemini-3-pro-preview", baseUrl: local },
  },
  { family: "chat ollama", profile: { protocol: "chat_completions", model: "qwen3:8b", baseUrl: local } },
  {
    family: "chat mistral api",
    profile: {
      protocol: "chat_completions",
      model: "mistral-large-latest",
      baseUrl: "https://api.mistral.ai/v1",
    },
  },
  {
    family: "responses gpt-5 stateless",
    profile: { protocol: "responses", model: "gpt-5-mini", baseUrl: local },
  },
  {
    family: "responses gpt-5 stored",
    profile: { protocol: "responses", model: "gpt-5", baseUrl: local, store: true },
  },
  { family: "responses gpt-chat", profile: { protocol: "responses", model: "gpt-4.1", baseUrl: local } },
  {
    family: "anthropic claude-budget",
    profile: { protocol: "anthropic", model: "claude-sonnet-4-5", baseUrl: local },
  },
  {
    family: "anthropic claude-4.6",
    profile: { protocol: "anthropic", model: "claude-opus-4-6", baseUrl: local },
  },
  {
    family: "anthropic claude-adaptive-only",
    profile: { protocol: "anthropic", model: "claude-opus-4-7", baseUrl: local },
  },
  {
    family: "anthropic claude-no-thinking",
    profile: { protocol: "anthropic", model: "claude-3-5-haiku", baseUrl: local },
  },
  { family: "gemini 2.5", profile: { protocol: "gemini", model: "gemini-2.5-flash", baseUrl: local } },
  { family: "gemini 3", profile: { protocol: "gemini", model: "gemini-3-flash-preview", baseUrl: local } },
  { family: "gemini 3 pro", profile: { protocol: "gemini", model: "gemini-3-pro-preview", baseUrl: local } },
  {
    family: "gemini no-thinking",
    profile: { protocol: "gemini", model: "gemini-2.0-flash", baseUrl: local },
  },
];

/** Request configs: any mix of output limit, sampling and reasoning. */
export const requestConfigArbitrary: fc.Arbitrary<RequestConfig> = fc.record(
  {
    max_tokens: fc.integer({ min: 1, max: 40_000 }),
    temperature: fc.double({ min: 0, max: 1, noNaN: true }),
    top_p: fc.double({ min: 0.1, max: 1, noNaN: true }),
    top_k: fc.integer({ min: 1, max: 50 }),
    reasoning: fc.oneof(
      fc.record({ effort: fc.constantFrom("minimal", "low", "medium", "high", "xhigh" as const) }),
      fc.record({ budget_tokens: fc.integer({ min: 1024, max: 20_000 }) }),
    ),
  },
  { requiredKeys: [] },
);

/** The tools every generated request offers. */
export const builderTools: ToolMeta[] = [
  { name: "lookup", description: "Look up", input_schema: { type: "object" } },
  { name: "write_file", description: "Write", input_schema: { type: "object", properties: {} } },
];
