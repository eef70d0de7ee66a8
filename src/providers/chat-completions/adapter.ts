/**
 * The Chat Completions protocol: `POST {base}/chat/completions` with Bearer auth when a key is
 * configured (local servers run without one).
 */
import {
  bearerAuth,
  dropElementField,
  dropField,
  type WireBody,
  type WireProtocol,
} from "../wire-protocol.js";
import { ChatCompletionsParser } from "./parser.js";
import { type ChatRequestOptions, chatRequestBody } from "./request.js";
import { serverCapabilities, serverMaxTokensField } from "./server-rules.js";
import { chatWholeResponse } from "./whole-response.js";

export const chatCompletionsProtocol: WireProtocol<ChatRequestOptions> = {
  protocol: "chat_completions",
  endpoint: () => ({ version: "v1", path: "/chat/completions" }),
  authHeaders: bearerAuth,
  options: ({ profile, baseUrl }) => ({
    maxTokensField: profile.maxTokensField ?? serverMaxTokensField(baseUrl),
  }),
  serverCapabilities: ({ baseUrl }) => serverCapabilities(baseUrl),
  body: chatRequestBody,
  // OpenAI names a message in `param` ("messages.[3].content"), validators in `loc`.
  history: { array: "messages", trusts: ["param", "loc"], blocks: false },
  parser: (provider) => new ChatCompletionsParser(provider),
  wholeResponse: chatWholeResponse,
  optionalFields: {
    // Mistral: 422 extra_forbidden for each of these (servers that validate strictly).
    stream_options: dropField("stream_options"),
    max_completion_tokens: maxTokensInstead,
    top_k: dropField("top_k"),
    top_p: dropField("top_p"),
    temperature: dropField("temperature"),
    reasoning_effort: dropField("reasoning_effort"),
    "messages.reasoning_content": dropElementField("messages", "reasoning_content"),
    "messages.reasoning_details": dropElementField("messages", "reasoning_details"),
    "messages.extra_content": dropToolCallExtras,
  },
};

/** `max_completion_tokens` refused: the limit goes as `max_tokens`. */
function maxTokensInstead(body: WireBody): void {
  if (body.max_completion_tokens === undefined) return;
  body.max_tokens = body.max_completion_tokens;
  delete body.max_completion_tokens;
}

/** `extra_content` refused on tool calls: every call goes without it. */
function dropToolCallExtras(body: WireBody): void {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const message of messages) {
    const calls = (message as WireBody).tool_calls;
    if (Array.isArray(calls)) dropElementField("calls", "extra_content")({ calls });
  }
}
