/**
 * The Anthropic Messages protocol: `POST {base}/v1/messages` with `x-api-key` and
 * `anthropic-version` headers.
 */
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
  options: ({ profile }) => ({ promptCaching: profile.promptCaching ?? true }),
  body: anthropicRequestBody,
  parser: (provider) => new AnthropicParser(provider),
};
