/**
 * The Chat Completions protocol: `POST {base}/chat/completions` with Bearer auth when a key is
 * configured (local servers run without one).
 */
import { capabilitiesFor } from "../capability-table.js";
import { isLoopbackUrl } from "../endpoint-url.js";
import { bearerAuth, type WireProtocol } from "../wire-protocol.js";
import { ChatCompletionsParser } from "./parser.js";
import { type ChatRequestOptions, chatRequestBody } from "./request.js";

export const chatCompletionsProtocol: WireProtocol<ChatRequestOptions> = {
  protocol: "chat_completions",
  endpoint: () => ({ version: "v1", path: "/chat/completions" }),
  authHeaders: bearerAuth,
  options: ({ profile, provider, baseUrl }) => ({
    model: profile.model,
    maxTokensField:
      profile.maxTokensField ?? (isLoopbackUrl(baseUrl) ? "max_tokens" : "max_completion_tokens"),
    capabilities: capabilitiesFor("chat_completions", profile.model, profile.capabilities),
    origin: { provider, model: profile.model },
  }),
  body: chatRequestBody,
  parser: (provider) => new ChatCompletionsParser(provider),
};
