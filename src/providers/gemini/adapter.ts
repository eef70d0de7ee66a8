/**
 * The Gemini protocol: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse` with
 * `x-goog-api-key`.
 */
import { capabilitiesFor } from "../capability-table.js";
import type { WireProtocol } from "../wire-protocol.js";
import { GeminiParser } from "./parser.js";
import { type GeminiRequestOptions, geminiRequestBody } from "./request.js";

/** The model name without the `models/` prefix a profile may give it. */
function modelName(model: string): string {
  return model.replace(/^models\//, "");
}

export const geminiProtocol: WireProtocol<GeminiRequestOptions> = {
  protocol: "gemini",
  endpoint: ({ profile }) => ({
    version: "v1beta",
    path: `/models/${encodeURIComponent(modelName(profile.model))}:streamGenerateContent?alt=sse`,
  }),
  authHeaders: (apiKey) => ({ "x-goog-api-key": apiKey }),
  options: ({ profile, provider }) => ({
    capabilities: capabilitiesFor("gemini", modelName(profile.model), profile.capabilities),
    origin: { provider, model: profile.model },
  }),
  body: geminiRequestBody,
  parser: (provider) => new GeminiParser(provider),
};
