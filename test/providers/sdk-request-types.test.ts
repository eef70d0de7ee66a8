/**
 * The request bodies checked against the vendors' own SDK types. The type-level part is
 * checked by `tsc` (npm run typecheck): each body type the adapters build must be assignable to
 * the official SDK's request parameter type, so a field with a wrong name, shape or value set
 * fails the build. The runtime part sends bodies built by our adapters through the official
 * OpenAI and Anthropic clients to the fake provider and checks the SDK accepted them and put
 * exactly the same JSON on the wire as our own client does. Assignability lets a body type carry
 * fields the SDK does not declare: sdk-declared-fields.test.ts checks the built bodies for those.
 * The SDKs are dev dependencies only: nothing under src/ imports them.
 *
 * Known differences, kept on purpose (and spelled out in the types below):
 * - Responses `reasoning` input items: the SDK requires `id`, but with `store: false` an id
 *   points at nothing, so it is sent only when stored (encrypted content carries the item).
 * - Gemini: the SDK's request types are its own (a `config` object, enum values in capitals),
 *   so the REST body is checked part by part against the SDK's wire-level types (Content,
 *   Tool, GenerationConfig), and thinking levels against the enum's values in lower case.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import type { Content, Tool as GeminiTool, GenerationConfig, ThinkingLevel } from "@google/genai";
import OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions/completions";
import type {
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseReasoningItem,
} from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { reasoning, toolCall, toolResult, userMessage } from "../../src/model/items.js";
import type { LlmRequest } from "../../src/model/llm-client.js";
import type { AnthropicRequestBody } from "../../src/providers/anthropic/request.js";
import type { ChatRequestBody } from "../../src/providers/chat-completions/request.js";
import { protocolAdapter } from "../../src/providers/create-llm-client.js";
import type { GeminiContent, GeminiRequestBody } from "../../src/providers/gemini/request.js";
import type { GeminiThinkingLevel } from "../../src/providers/model-capabilities.js";
import type { ProviderProtocol } from "../../src/providers/provider-profile.js";
import type {
  ResponsesInputItem,
  ResponsesReasoning,
  ResponsesRequestBody,
} from "../../src/providers/responses/request.js";
import { text } from "../support/fake-provider/index.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";

/** `true` exactly when `From` is assignable to `To`. */
type Assignable<From, To> = [From] extends [To] ? true : false;

// ---- type level: checked by tsc -------------------------------------------------------------

const chatBody: Assignable<ChatRequestBody, ChatCompletionCreateParamsStreaming> = true;
const anthropicBody: Assignable<AnthropicRequestBody, MessageCreateParamsStreaming> = true;

/** The SDK's input items, with a reasoning item's id optional (see above). */
type ResponsesInputAsSent =
  | Exclude<ResponseInputItem, ResponseReasoningItem>
  | (Omit<ResponseReasoningItem, "id"> & { id?: string });
const responsesItems: Assignable<Exclude<ResponsesInputItem, ResponsesReasoning>, ResponseInputItem> = true;
const responsesReasoning: Assignable<ResponsesReasoning, ResponsesInputAsSent> = true;
const responsesBody: Assignable<
  Omit<ResponsesRequestBody, "input">,
  Omit<ResponseCreateParamsStreaming, "input">
> = true;

const geminiContents: Assignable<GeminiContent, Content> = true;
const geminiTools: Assignable<NonNullable<GeminiRequestBody["tools"]>[number], GeminiTool> = true;
const geminiGeneration: Assignable<
  Omit<NonNullable<GeminiRequestBody["generationConfig"]>, "thinkingConfig">,
  Omit<GenerationConfig, "thinkingConfig">
> = true;
const geminiLevels: Assignable<GeminiThinkingLevel, Lowercase<`${ThinkingLevel}`>> = true;

// ---- runtime: the official clients send our bodies unchanged ---------------------------------

const fake = withFakeProvider();

const request: LlmRequest = {
  system_prompt: "Be brief.",
  items: [
    userMessage("Weather in Paris?"),
    reasoning("Need a lookup.", { signature: "sig", encrypted_content: "enc", summary: ["Need a lookup."] }),
    toolCall("call_1", "get_weather", '{"city":"Paris"}'),
    toolResult("call_1", "18°C"),
  ],
  tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object" } }],
  config: { max_tokens: 600, temperature: 0.5, stop_sequences: ["END"], reasoning: { effort: "high" } },
};

/** The body our adapter builds for `model`, parsed. */
function built(protocol: ProviderProtocol, model: string): Record<string, unknown> {
  const adapter = protocolAdapter({ protocol, model, baseUrl: fake().baseUrl }, "k");
  return JSON.parse(adapter.buildHttpRequest(request).body) as Record<string, unknown>;
}

describe("request bodies against the official SDKs", () => {
  it("passes the type checks (compiled by tsc)", () => {
    expect([
      chatBody,
      anthropicBody,
      responsesItems,
      responsesReasoning,
      responsesBody,
      geminiContents,
      geminiTools,
      geminiGeneration,
      geminiLevels,
    ]).not.toContain(false);
  });

  it.each(["gpt-5-mini", "gpt-4.1", "deepseek-reasoner", "qwen3:8b"])(
    "Chat Completions (%s): the OpenAI client sends our body as is",
    async (model) => {
      fake().queue(text("ok"));
      const body = built("chat_completions", model) as unknown as ChatCompletionCreateParamsStreaming;
      const client = new OpenAI({ apiKey: "k", baseURL: `${fake().baseUrl}/v1`, maxRetries: 0 });
      for await (const _chunk of await client.chat.completions.create(body)) {
        // drain
      }
      expect(fake().lastRequest.body).toEqual(body);
    },
  );

  it.each(["gpt-5", "gpt-4o"])("Responses (%s): the OpenAI client sends our body as is", async (model) => {
    fake().queue(text("ok"));
    const body = built("responses", model) as unknown as ResponseCreateParamsStreaming;
    const client = new OpenAI({ apiKey: "k", baseURL: `${fake().baseUrl}/v1`, maxRetries: 0 });
    for await (const _event of await client.responses.create(body)) {
      // drain
    }
    expect(fake().lastRequest.body).toEqual(body);
  });

  it.each(["claude-sonnet-4-5", "claude-opus-4-7"])(
    "Anthropic (%s): the Anthropic client sends our body as is",
    async (model) => {
      fake().queue(text("ok"));
      const body = built("anthropic", model) as unknown as MessageCreateParamsStreaming;
      const client = new Anthropic({ apiKey: "k", baseURL: fake().baseUrl, maxRetries: 0 });
      for await (const _event of await client.messages.create(body)) {
        // drain
      }
      expect(fake().lastRequest.body).toEqual(body);
    },
  );
});
