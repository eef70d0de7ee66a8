/**
 * The Gemini protocol bound to a profile:
 * `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse` with `x-goog-api-key`.
 *
 * Boundary rule: wiring only; the request body and the parser live next door.
 */
import type { LlmRequest } from "../../model/llm-client.js";
import { capabilitiesFor } from "../capability-table.js";
import { endpointUrl } from "../endpoint-url.js";
import { effectiveBaseUrl, type ProviderProfile, providerLabels } from "../provider-profile.js";
import { streamingRequestHeaders } from "../request-headers.js";
import type { HttpRequestSpec, ProtocolAdapter, StreamParser } from "../stream-parser.js";
import { GeminiParser } from "./parser.js";
import { geminiRequestBody } from "./request.js";

/** A Gemini adapter for `profile`. */
export function geminiAdapter(profile: ProviderProfile, apiKey: string | undefined): ProtocolAdapter {
  const provider = providerLabels.gemini;
  const model = profile.model.replace(/^models\//, "");
  const url = endpointUrl(
    effectiveBaseUrl(profile),
    "v1beta",
    `/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`,
  );
  const options = {
    capabilities: capabilitiesFor("gemini", model, profile.capabilities),
    origin: { provider, model: profile.model },
  };
  return {
    provider,
    model: profile.model,
    buildHttpRequest(request: LlmRequest): HttpRequestSpec {
      return {
        url,
        headers: streamingRequestHeaders(
          apiKey === undefined ? {} : { "x-goog-api-key": apiKey },
          profile.headers,
        ),
        body: JSON.stringify(geminiRequestBody(request, options)),
      };
    },
    createParser(): StreamParser {
      return new GeminiParser(provider);
    },
  };
}
