/**
 * What a Chat Completions server (not its model) accepts: the schema is the server's, so these
 * rules follow the base URL, while the model's rules follow its name (capability-table.ts).
 * Mistral's API (`api.mistral.ai`) validates bodies strictly and answers 422 `extra_forbidden`
 * ("Extra inputs are not permitted", `loc: ["body", field]`) for any field it does not declare:
 * `stream_options`, `max_completion_tokens`, `reasoning_content` among those others send.
 * Loopback servers (Ollama, llama.cpp, vLLM) know `max_tokens` only. A profile's own
 * `maxTokensField` and `capabilities` win over both.
 *
 * Boundary rule: pure functions of a base URL.
 */
import { isLoopbackUrl } from "../endpoint-url.js";
import type { CapabilityOverrides } from "../model-capabilities.js";

/** Whether the base URL is Mistral's own API. */
function isMistralApi(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === "api.mistral.ai" || host.endsWith(".mistral.ai");
  } catch {
    return false;
  }
}

/** The capabilities the server itself imposes, before the profile's overrides. */
export function serverCapabilities(baseUrl: string): CapabilityOverrides {
  // Mistral's schema has no top_k and no reasoning_effort (its reasoning models think unasked).
  return isMistralApi(baseUrl)
    ? { streamUsage: false, reasoningContent: false, reasoningDetails: false, topK: false, reasoning: "none" }
    : {};
}

/** The output limit's field name the server takes. */
export function serverMaxTokensField(baseUrl: string): "max_tokens" | "max_completion_tokens" {
  return isLoopbackUrl(baseUrl) || isMistralApi(baseUrl) ? "max_tokens" : "max_completion_tokens";
}
