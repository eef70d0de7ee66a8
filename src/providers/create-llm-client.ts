/**
 * The one entry point from a provider profile to a working `LlmClient`.
 *
 * Boundary rule: selection and defaults only.
 */
import type { LlmClient } from "../model/llm-client.js";
import { unreachable } from "../model/unreachable.js";
import { anthropicProtocol } from "./anthropic/adapter.js";
import { chatCompletionsProtocol } from "./chat-completions/adapter.js";
import { type FieldRefusals, processFieldRefusals } from "./field-refusals.js";
import { geminiProtocol } from "./gemini/adapter.js";
import { type ProviderProfile, resolveApiKey, validateProviderProfile } from "./provider-profile.js";
import { responsesProtocol } from "./responses/adapter.js";
import { defaultRetryPolicy, type RetryPolicy } from "./retry-policy.js";
import type { ProtocolAdapter } from "./stream-parser.js";
import { StreamingLlmClient } from "./streaming-client.js";
import { bindProtocol } from "./wire-protocol.js";

/** Transport options; everything has a default. */
export interface LlmClientOptions {
  /** No bytes from the provider for this long ends the request with a "timeout" error. Default 180 s. */
  idleTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Where `apiKeyEnv` is looked up. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Jitter source for retry backoff. Default `Math.random`. */
  random?: () => number;
  /** Where refused optional fields are remembered. Default: shared by the whole process. */
  fieldRefusals?: FieldRefusals;
}

/** Reasoning models can think for minutes before the first byte; three is a stall. */
export const defaultIdleTimeoutMs = 180_000;

/** The protocol adapter for a profile (its servers' refusals remembered in `refusals`). */
export function protocolAdapter(
  profile: ProviderProfile,
  apiKey: string | undefined,
  refusals: FieldRefusals = processFieldRefusals,
): ProtocolAdapter {
  switch (profile.protocol) {
    case "chat_completions":
      return bindProtocol(chatCompletionsProtocol, profile, apiKey, refusals);
    case "responses":
      return bindProtocol(responsesProtocol, profile, apiKey, refusals);
    case "anthropic":
      return bindProtocol(anthropicProtocol, profile, apiKey, refusals);
    case "gemini":
      return bindProtocol(geminiProtocol, profile, apiKey, refusals);
    default:
      unreachable(profile.protocol, "unknown protocol");
  }
}

/**
 * A streaming client for `profile`. Throws an `LlmClientError` of kind "config" when the
 * profile is invalid or its API key cannot be found.
 */
export function createLlmClient(profile: ProviderProfile, options: LlmClientOptions = {}): LlmClient {
  const checked = validateProviderProfile(profile);
  const apiKey = resolveApiKey(checked, options.env);
  return new StreamingLlmClient(protocolAdapter(checked, apiKey, options.fieldRefusals), {
    idleTimeoutMs: options.idleTimeoutMs ?? defaultIdleTimeoutMs,
    retry: { ...defaultRetryPolicy, ...options.retry },
    random: options.random ?? Math.random,
  });
}
