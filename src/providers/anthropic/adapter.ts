/**
 * The Anthropic Messages protocol bound to a profile: `POST {base}/v1/messages` with
 * `x-api-key` and `anthropic-version` headers.
 *
 * Boundary rule: wiring only; the request body and the parser live next door.
 */
import type { LlmRequest } from "../../model/llm-client.js";
import { capabilitiesFor } from "../capability-table.js";
import { endpointUrl } from "../endpoint-url.js";
import { effectiveBaseUrl, type ProviderProfile, providerLabels } from "../provider-profile.js";
import { streamingRequestHeaders } from "../request-headers.js";
import type { HttpRequestSpec, ProtocolAdapter, StreamParser } from "../stream-parser.js";
import { AnthropicParser } from "./parser.js";
import { anthropicRequestBody } from "./request.js";

/** The API version this adapter speaks; a profile header can override it. */
export const anthropicVersion = "2023-06-01";

/** An Anthropic adapter for `profile`. */
export function anthropicAdapter(profile: ProviderProfile, apiKey: string | undefined): ProtocolAdapter {
  const provider = providerLabels.anthropic;
  const url = endpointUrl(effectiveBaseUrl(profile), "v1", "/messages");
  const options = {
    model: profile.model,
    promptCaching: profile.promptCaching ?? true,
    capabilities: capabilitiesFor("anthropic", profile.model, profile.capabilities),
    origin: { provider, model: profile.model },
  };
  return {
    provider,
    model: profile.model,
    buildHttpRequest(request: LlmRequest): HttpRequestSpec {
      const auth: Record<string, string> = apiKey === undefined ? {} : { "x-api-key": apiKey };
      return {
        url,
        headers: streamingRequestHeaders({ "anthropic-version": anthropicVersion, ...auth }, profile.headers),
        body: JSON.stringify(anthropicRequestBody(request, options)),
      };
    },
    createParser(): StreamParser {
      return new AnthropicParser(provider);
    },
  };
}
