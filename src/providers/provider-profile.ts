/**
 * Provider profiles: which wire protocol, where, which model, which credentials, the request
 * defaults of its sessions (output limit, temperature, effort or thinking budget) and
 * overrides of the capability table. A profile is plain data (it comes from
 * `$SKEIN_HOME/config.json`), so it is validated field by field here and every problem is a
 * "config" error that says what to fix.
 *
 * Boundary rule: validation and credential lookup only; no network.
 */
import { LlmClientError } from "../model/llm-client.js";
import { isLoopbackUrl } from "./endpoint-url.js";
import {
  booleanCapabilities,
  type CapabilityOverrides,
  type Effort,
  efforts,
  type ReasoningStyle,
  reasoningStyles,
} from "./model-capabilities.js";
import { isWireObject, type WireObject } from "./wire-json.js";

export type ProviderProtocol = "chat_completions" | "responses" | "anthropic" | "gemini";

/** Every protocol a profile may name. */
export const providerProtocols: readonly ProviderProtocol[] = [
  "chat_completions",
  "responses",
  "anthropic",
  "gemini",
];

/** Where and how to reach a model. */
export interface ProviderProfile {
  protocol: ProviderProtocol;
  /** API root; defaults to the vendor's public endpoint. `http://localhost:11434/v1` style bases work too. */
  baseUrl?: string;
  model: string;
  /** The key itself, or `apiKeyEnv`: the name of an environment variable holding it. */
  apiKey?: string;
  apiKeyEnv?: string;
  /** Extra request headers (they override the adapter's defaults). */
  headers?: Record<string, string>;
  /**
   * chat_completions: the field carrying the output limit. OpenAI wants `max_completion_tokens`;
   * older local servers only know `max_tokens`. Default: `max_tokens` for loopback base URLs,
   * `max_completion_tokens` otherwise.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** anthropic: mark cache breakpoints with `cache_control` (default true; some compatible servers reject it). */
  promptCaching?: boolean;
  /** responses: let OpenAI store the response (default false: reasoning comes back encrypted instead). */
  store?: boolean;
  /** Default output token limit of this profile's sessions. */
  maxOutputTokens?: number;
  /** Default sampling temperature (sent only where the model accepts it). */
  temperature?: number;
  topP?: number;
  topK?: number;
  /** Default effort level; exclusive with `thinkingBudget`. */
  effort?: Effort;
  /** Default thinking budget in tokens; exclusive with `effort`. */
  thinkingBudget?: number;
  /** Overrides of the capability table for this profile's model (docs/providers.md). */
  capabilities?: CapabilityOverrides;
  /** The model's context window in tokens (prompt and output); default: the model table's (model-limits.ts). */
  contextWindow?: number;
  /** Compact a session's context before a request once the prompt reaches this share of the window (0.1 to 1; default 0.8). */
  compactThreshold?: number;
  /** USD per million tokens; default: the model table's, if it knows the model. */
  prices?: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

/** The vendors' public endpoints. */
export const defaultBaseUrls: Record<ProviderProtocol, string> = {
  chat_completions: "https://api.openai.com/v1",
  responses: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  gemini: "https://generativelanguage.googleapis.com",
};

/** The label of each protocol's client, used in errors and as `LlmClient.provider`. */
export const providerLabels: Record<ProviderProtocol, string> = {
  chat_completions: "openai-chat",
  responses: "openai-responses",
  anthropic: "anthropic",
  gemini: "gemini",
};

const knownFields = new Set([
  "protocol",
  "baseUrl",
  "model",
  "apiKey",
  "apiKeyEnv",
  "headers",
  "maxTokensField",
  "promptCaching",
  "store",
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "effort",
  "thinkingBudget",
  "capabilities",
  "contextWindow",
  "compactThreshold",
  "prices",
]);

function configError(message: string): LlmClientError {
  return new LlmClientError("config", "config", message);
}

function optionalString(source: WireObject, key: string, where: string): string | undefined {
  const value = source[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0) {
    throw configError(`${where}: "${key}" must be a non-empty string`);
  }
  return value;
}

function optionalBoolean(source: WireObject, key: string, where: string): boolean | undefined {
  const value = source[key];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw configError(`${where}: "${key}" must be true or false`);
  return value;
}

/** Checks untrusted data (a config file entry) and returns it as a profile; throws a "config" error naming the bad field. */
export function validateProviderProfile(value: unknown, where = "provider profile"): ProviderProfile {
  if (!isWireObject(value)) throw configError(`${where} must be a JSON object`);
  for (const key of Object.keys(value)) {
    if (!knownFields.has(key)) throw configError(`${where}: unknown field "${key}"`);
  }
  const protocol = value.protocol;
  if (typeof protocol !== "string" || !providerProtocols.includes(protocol as ProviderProtocol)) {
    throw configError(`${where}: "protocol" must be one of ${providerProtocols.join(", ")}`);
  }
  const model = optionalString(value, "model", where);
  if (model === undefined) throw configError(`${where}: "model" is required`);
  const profile: ProviderProfile = { protocol: protocol as ProviderProtocol, model };
  const baseUrl = optionalString(value, "baseUrl", where);
  if (baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw configError(`${where}: "baseUrl" is not a URL: ${baseUrl}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw configError(`${where}: "baseUrl" must be an http or https URL`);
    }
    profile.baseUrl = baseUrl;
  }
  const apiKey = optionalString(value, "apiKey", where);
  if (apiKey !== undefined) profile.apiKey = apiKey;
  const apiKeyEnv = optionalString(value, "apiKeyEnv", where);
  if (apiKeyEnv !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) {
      throw configError(`${where}: "apiKeyEnv" must be an environment variable name`);
    }
    profile.apiKeyEnv = apiKeyEnv;
  }
  if (value.headers !== undefined) {
    const headers = value.headers;
    if (!isWireObject(headers)) throw configError(`${where}: "headers" must map header names to strings`);
    for (const [name, header] of Object.entries(headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || typeof header !== "string") {
        throw configError(
          `${where}: "headers" entry ${JSON.stringify(name)} must be a valid header name with a string value`,
        );
      }
    }
    profile.headers = { ...(headers as Record<string, string>) };
  }
  const maxTokensField = value.maxTokensField;
  if (maxTokensField !== undefined) {
    if (maxTokensField !== "max_tokens" && maxTokensField !== "max_completion_tokens") {
      throw configError(`${where}: "maxTokensField" must be "max_tokens" or "max_completion_tokens"`);
    }
    profile.maxTokensField = maxTokensField;
  }
  const promptCaching = optionalBoolean(value, "promptCaching", where);
  if (promptCaching !== undefined) profile.promptCaching = promptCaching;
  const store = optionalBoolean(value, "store", where);
  if (store !== undefined) profile.store = store;
  readRequestDefaults(value, where, profile);
  if (value.capabilities !== undefined) profile.capabilities = capabilityOverrides(value.capabilities, where);
  return profile;
}

function optionalNumber(
  source: WireObject,
  key: string,
  where: string,
  check: { integer: boolean; min: number; max: number },
): number | undefined {
  const value = source[key];
  if (value === undefined) return undefined;
  const valid =
    typeof value === "number" &&
    Number.isFinite(value) &&
    (!check.integer || Number.isInteger(value)) &&
    value >= check.min &&
    value <= check.max;
  if (!valid) {
    throw configError(
      `${where}: "${key}" must be ${check.integer ? "an integer" : "a number"} from ${check.min} to ${check.max}`,
    );
  }
  return value as number;
}

const tokenRange = { integer: true, min: 1, max: 10_000_000 };

/** The request defaults of a profile (output limit, sampling, effort or thinking budget). */
function readRequestDefaults(value: WireObject, where: string, profile: ProviderProfile): void {
  readContextSettings(value, where, profile);
  const maxOutputTokens = optionalNumber(value, "maxOutputTokens", where, tokenRange);
  if (maxOutputTokens !== undefined) profile.maxOutputTokens = maxOutputTokens;
  const temperature = optionalNumber(value, "temperature", where, { integer: false, min: 0, max: 2 });
  if (temperature !== undefined) profile.temperature = temperature;
  const topP = optionalNumber(value, "topP", where, { integer: false, min: 0, max: 1 });
  if (topP !== undefined) profile.topP = topP;
  const topK = optionalNumber(value, "topK", where, tokenRange);
  if (topK !== undefined) profile.topK = topK;
  if (value.effort !== undefined) {
    if (typeof value.effort !== "string" || !efforts.includes(value.effort as Effort)) {
      throw configError(`${where}: "effort" must be one of ${efforts.join(", ")}`);
    }
    profile.effort = value.effort as Effort;
  }
  const thinkingBudget = optionalNumber(value, "thinkingBudget", where, tokenRange);
  if (thinkingBudget !== undefined) {
    if (profile.effort !== undefined)
      throw configError(`${where}: set "effort" or "thinkingBudget", not both`);
    profile.thinkingBudget = thinkingBudget;
  }
}

/** The context window, the compaction threshold and the prices of a profile. */
function readContextSettings(value: WireObject, where: string, profile: ProviderProfile): void {
  const contextWindow = optionalNumber(value, "contextWindow", where, {
    integer: true,
    min: 1_024,
    max: 100_000_000,
  });
  if (contextWindow !== undefined) profile.contextWindow = contextWindow;
  const threshold = optionalNumber(value, "compactThreshold", where, { integer: false, min: 0.1, max: 1 });
  if (threshold !== undefined) profile.compactThreshold = threshold;
  if (value.prices === undefined) return;
  const prices = value.prices;
  const at = `${where}: "prices"`;
  if (!isWireObject(prices)) throw configError(`${at} must be a JSON object`);
  for (const key of Object.keys(prices)) {
    if (!["input", "output", "cacheRead", "cacheWrite"].includes(key)) {
      throw configError(`${at} has an unknown field "${key}" (known: input, output, cacheRead, cacheWrite)`);
    }
  }
  const price = { integer: false, min: 0, max: 1_000_000 };
  const input = optionalNumber(prices, "input", at, price);
  const output = optionalNumber(prices, "output", at, price);
  if (input === undefined || output === undefined) throw configError(`${at} needs "input" and "output"`);
  profile.prices = {
    input,
    output,
    cacheRead: optionalNumber(prices, "cacheRead", at, price) ?? input,
    cacheWrite: optionalNumber(prices, "cacheWrite", at, price) ?? input,
  };
}

/** Checks a profile's `capabilities` object: known keys, booleans, a known reasoning style. */
function capabilityOverrides(value: unknown, where: string): CapabilityOverrides {
  const at = `${where}: "capabilities"`;
  if (!isWireObject(value)) throw configError(`${at} must be a JSON object`);
  const overrides: CapabilityOverrides = {};
  const known = new Set<string>(["reasoning", ...booleanCapabilities]);
  for (const key of Object.keys(value)) {
    if (!known.has(key)) {
      throw configError(`${at} has an unknown field "${key}" (known: ${[...known].join(", ")})`);
    }
  }
  if (value.reasoning !== undefined) {
    if (typeof value.reasoning !== "string" || !reasoningStyles.includes(value.reasoning as ReasoningStyle)) {
      throw configError(`${at}.reasoning must be one of ${reasoningStyles.join(", ")}`);
    }
    overrides.reasoning = value.reasoning as ReasoningStyle;
  }
  for (const key of booleanCapabilities) {
    const flag = optionalBoolean(value, key, at);
    if (flag !== undefined) overrides[key] = flag;
  }
  return overrides;
}

/** The base URL a profile really uses. */
export function effectiveBaseUrl(profile: ProviderProfile): string {
  return profile.baseUrl ?? defaultBaseUrls[profile.protocol];
}

/**
 * Whether a profile cannot work without a key: a vendor protocol on a remote host
 * (chat_completions servers and anything on loopback may run without one).
 */
export function apiKeyRequired(profile: ProviderProfile): boolean {
  return profile.protocol !== "chat_completions" && !isLoopbackUrl(effectiveBaseUrl(profile));
}

/**
 * The API key for a profile: `apiKey`, else the variable named by `apiKeyEnv`. A named but
 * unset variable is an error; so is no key at all for a vendor protocol on a remote host
 * (chat_completions servers and anything on loopback may run without one).
 */
export function resolveApiKey(
  profile: ProviderProfile,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  if (profile.apiKey !== undefined) return profile.apiKey;
  if (profile.apiKeyEnv !== undefined) {
    const key = env[profile.apiKeyEnv];
    if (key === undefined || key.length === 0) {
      throw configError(
        `the API key variable ${profile.apiKeyEnv} named by the ${profile.protocol} profile is not set`,
      );
    }
    return key;
  }
  if (apiKeyRequired(profile)) {
    throw configError(
      `the ${profile.protocol} profile for ${profile.model} has no API key: set "apiKey" or "apiKeyEnv"`,
    );
  }
  return undefined;
}
