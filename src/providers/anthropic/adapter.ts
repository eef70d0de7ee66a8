/**
 * The Anthropic Messages protocol: `POST {base}/v1/messages` with `x-api-key` and
 * `anthropic-version` headers.
 */
import { dropField, type WireProtocol } from "../wire-protocol.js";
import { AnthropicParser } from "./parser.js";
import { type AnthropicRequestOptions, anthropicRequestBody } from "./request.js";
import { anthropicWholeResponse } from "./whole-response.js";

/** The API version this adapter speaks; a profile header can override it. */
export const anthropicVersion = "2023-06-01";

export const anthropicProtocol: WireProtocol<AnthropicRequestOptions> = {
  protocol: "anthropic",
  endpoint: () => ({ version: "v1", path: "/messages" }),
  authHeaders: (apiKey) => ({ "x-api-key": apiKey }),
  fixedHeaders: { "anthropic-version": anthropicVersion },
  options: ({ profile }) => ({ promptCaching: profile.promptCaching ?? true }),
  body: anthropicRequestBody,
  // Anthropic's message starts with the path: "messages.3.content.0: …".
  history: { array: "messages", trusts: ["message"], blocks: true },
  parser: (provider) => new AnthropicParser(provider),
  wholeResponse: anthropicWholeResponse,
  optionalFields: {
    temperature: dropField("temperature"),
    top_p: dropField("top_p"),
    top_k: dropField("top_k"),
  },
  fieldsOfMessage: (message) =>
    // "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
    /`?temperature`? and `?top_p`? cannot both be specified/.test(message) ? ["top_p"] : [],
};
