/** The providers layer's public surface. */
export { anthropicVersion } from "./anthropic/adapter.js";
export { capabilitiesFor } from "./capability-table.js";
export {
  createLlmClient,
  defaultIdleTimeoutMs,
  type LlmClientOptions,
  protocolAdapter,
} from "./create-llm-client.js";
export { effectiveRequestConfig, profileRequestDefaults } from "./effective-request-config.js";
export { endpointUrl, isLoopbackUrl } from "./endpoint-url.js";
export { describeErrorBody, retryAfterMs } from "./http-error.js";
export type {
  CapabilityOverrides,
  Effort,
  ModelCapabilities,
  ReasoningRule,
  ReasoningStyle,
} from "./model-capabilities.js";
export {
  defaultBaseUrls,
  effectiveBaseUrl,
  type ProviderProfile,
  type ProviderProtocol,
  providerLabels,
  providerProtocols,
  resolveApiKey,
  validateProviderProfile,
} from "./provider-profile.js";
export {
  defaultRetryPolicy,
  isRetryable,
  isRetryableStatus,
  type RetryPolicy,
  retryDelayMs,
} from "./retry-policy.js";
export { SseDecoder, type SseMessage } from "./sse-decoder.js";
export type { HttpRequestSpec, ProtocolAdapter, StreamParser } from "./stream-parser.js";
export { decodeStream, type StreamingClientSettings, StreamingLlmClient } from "./streaming-client.js";
