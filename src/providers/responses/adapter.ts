/**
 * The OpenAI Responses protocol bound to a profile: `POST {base}/responses` with Bearer auth.
 *
 * Boundary rule: wiring only; the request body and the parser live next door.
 */
import type { LlmRequest } from "../../model/llm-client.js";
import { endpointUrl } from "../endpoint-url.js";
import { effectiveBaseUrl, type ProviderProfile, providerLabels } from "../provider-profile.js";
import { streamingRequestHeaders } from "../request-headers.js";
import type { HttpRequestSpec, ProtocolAdapter, StreamParser } from "../stream-parser.js";
import { ResponsesParser } from "./parser.js";
import { responsesRequestBody } from "./request.js";

/** A Responses adapter for `profile`. */
export function responsesAdapter(profile: ProviderProfile, apiKey: string | undefined): ProtocolAdapter {
  const provider = providerLabels.responses;
  const url = endpointUrl(effectiveBaseUrl(profile), "v1", "/responses");
  const store = profile.store ?? false;
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
        body: JSON.stringify(responsesRequestBody(request, { model: profile.model, store })),
      };
    },
    createParser(): StreamParser {
      return new ResponsesParser(provider);
    },
  };
}
