/**
 * The Chat Completions protocol: `POST {base}/chat/completions` with Bearer auth when a key is
 * configured (local servers run without one).
 */
import { isLoopbackUrl } from "../endpoint-url.js";
import { bearerAuth, type WireProtocol } from "../wire-protocol.js";
import { ChatCompletionsParser } from "./parser.js";
import { type ChatRequestOptions, chatRequestBody } from "./request.js";

export const chatCompletionsProtocol: WireProtocol<ChatRequestOptions> = {
  protocol: "chat_completions",
  endpoint: () => ({ version: "v1", path: "/chat/completions" }),
  authHeaders: bearerAuth,
  options: ({ profile, baseUrl }) => ({
    maxTokensField:
      profile.maxTokensField ?? (isLoopbackUrl(baseUrl) ? "max_tokens" : "max_completion_tokens"),
  }),
  body: chatRequestBody,
  parser: (provider) => new ChatCompletionsParser(provider),
};
