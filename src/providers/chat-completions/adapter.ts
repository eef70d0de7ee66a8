/**
 * The Chat Completions protocol bound to a profile: `POST {base}/chat/completions` with Bearer
 * auth when a key is configured (local servers run without one).
 *
 * Boundary rule: wiring only; the request body and the parser live next door.
 */
import type { LlmRequest } from "../../model/llm-client.js";
import { capabilitiesFor } from "../capability-table.js";
import { endpointUrl, isLoopbackUrl } from "../endpoint-url.js";
import { effectiveBaseUrl, type ProviderProfile, providerLabels } from "../provider-profile.js";
import { streamingRequestHeaders } from "../request-headers.js";
import type { HttpRequestSpec, ProtocolAdapter, StreamParser } from "../stream-parser.js";
import { ChatCompletionsParser } from "./parser.js";
import { chatRequestBody } from "./request.js";

/** A Chat Completions adapter for `profile`. */
export function chatCompletionsAdapter(
  profile: ProviderProfile,
  apiKey: string | undefined,
): ProtocolAdapter {
  const provider = providerLabels.chat_completions;
  const base = effectiveBaseUrl(profile);
  const url = endpointUrl(base, "v1", "/chat/completions");
  const maxTokensField =
    profile.maxTokensField ?? (isLoopbackUrl(base) ? "max_tokens" : "max_completion_tokens");
  const options = {
    model: profile.model,
    maxTokensField,
    capabilities: capabilitiesFor("chat_completions", profile.model, profile.capabilities),
    origin: { provider, model: profile.model },
  };
  return {
    provider,
    model: profile.model,
    buildHttpRequest(request: LlmRequest): HttpRequestSpec {
      return {
        url,
        headers: streamingRequestHeaders(
          apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
          profile.headers,
        ),
        body: JSON.stringify(chatRequestBody(request, options)),
      };
    },
    createParser(): StreamParser {
      return new ChatCompletionsParser(provider);
    },
  };
}
