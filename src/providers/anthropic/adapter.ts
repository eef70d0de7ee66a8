/**
 * The Anthropic Messages protocol: `POST {base}/v1/messages` with `x-api-key` and
 * `anthropic-version` headers.
 */
import { capabilitiesFor } from "../capability-table.js";
import type { WireProtocol } from "../wire-protocol.js";
import { AnthropicParser } from "./parser.js";
import { type AnthropicRequestOptions, anthropicRequestBody } from "./request.js";

/** The API version this adapter speaks; a profile header can override it. */
export const anthropicVersion = "2023-06-01";

export const anthropicProtocol: WireProtocol<AnthropicRequestOptions> = {
  protocol: "anthropic",
  endpoint: () => ({ version: "v1", path: "/messages" }),
  authHeaders: (apiKey) => ({ "x-api-key": apiKey }),
  fixedHeaders: { "anthropic-version": anthropicVersion },
  options: ({ profile, provider }) => ({
    model: profile.model,
    promptCaching: profile.promptCaching ?? true,
    capabilities: capabilitiesFor("anthropic", profile.model, profile.capabilities),
    origin: { provider, model: profile.model },
  }),
  body: anthropicRequestBody,
  parser: (provider) => new AnthropicParser(provider),
};
