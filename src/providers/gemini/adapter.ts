/**
 * The Gemini protocol: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse` with
 * `x-goog-api-key`.
 */
import type { BoundModel, WireProtocol } from "../wire-protocol.js";
import { GeminiParser } from "./parser.js";
import { type GeminiRequestOptions, geminiRequestBody } from "./request.js";
import { geminiWholeResponse } from "./whole-response.js";

/** The model name without the `models/` prefix a profile may give it. */
function modelName(model: string): string {
  return model.replace(/^models\//, "");
}

// The capability table reads a model name without its `models/` prefix by itself.
export const geminiProtocol: WireProtocol<GeminiRequestOptions & BoundModel> = {
  protocol: "gemini",
  endpoint: ({ profile }) => ({
    version: "v1beta",
    path: `/models/${encodeURIComponent(modelName(profile.model))}:streamGenerateContent?alt=sse`,
  }),
  authHeaders: (apiKey) => ({ "x-goog-api-key": apiKey }),
  options: () => ({}),
  body: geminiRequestBody,
  parser: (provider) => new GeminiParser(provider),
  wholeResponse: geminiWholeResponse,
};
