/**
 * The OpenAI Responses protocol bound to a profile: `POST {base}/responses` with Bearer auth.
 *
 * Boundary rule: wiring only; the request body and the parser live next door.
 */
import type { LlmClientError, LlmRequest } from "../../model/llm-client.js";
import { capabilitiesFor } from "../capability-table.js";
import { endpointUrl } from "../endpoint-url.js";
import { effectiveBaseUrl, type ProviderProfile, providerLabels } from "../provider-profile.js";
import { streamingRequestHeaders } from "../request-headers.js";
import type { HttpRequestSpec, ProtocolAdapter, StreamParser } from "../stream-parser.js";
import { ResponsesParser } from "./parser.js";
import { responsesRequestBody } from "./request.js";

/** The answer of a model that cannot return encrypted reasoning to `include`. */
const encryptedRefusal = /encrypted content is not supported/i;

/** A Responses adapter for `profile`. */
export function responsesAdapter(profile: ProviderProfile, apiKey: string | undefined): ProtocolAdapter {
  const provider = providerLabels.responses;
  const url = endpointUrl(effectiveBaseUrl(profile), "v1", "/responses");
  const options = {
    model: profile.model,
    store: profile.store ?? false,
    capabilities: capabilitiesFor("responses", profile.model, profile.capabilities),
    origin: { provider, model: profile.model },
    encryptedReasoningRefused: false,
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
        body: JSON.stringify(responsesRequestBody(request, options)),
      };
    },
    adjustAfter(error: LlmClientError): boolean {
      // A model the table took for a reasoning one refuses encrypted reasoning: stop asking.
      if (options.encryptedReasoningRefused || error.kind !== "http" || error.status !== 400) return false;
      if (!encryptedRefusal.test(error.message)) return false;
      options.encryptedReasoningRefused = true;
      return true;
    },
    createParser(): StreamParser {
      return new ResponsesParser(provider);
    },
  };
}
