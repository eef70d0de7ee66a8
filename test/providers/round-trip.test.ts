/**
 * A full tool round trip through the real Worker for each protocol: turn 1 streams reasoning
 * and two tool calls from the fake provider, the Worker runs the tool, and the request for
 * turn 2 must carry the calls and their results in that protocol's exact shape, with the
 * reasoning data the provider needs (Anthropic signature, Responses encrypted content, Gemini
 * thought signatures).
 */
import { describe, expect, it } from "vitest";
import type { Item, ReasoningItem, ToolCallItem } from "../../src/model/items.js";
import type { ToolDefinition } from "../../src/model/tools.js";
import type { ProviderProtocol } from "../../src/providers/index.js";
import { createLlmClient } from "../../src/providers/index.js";
import { Worker } from "../../src/worker/index.js";
import { reasoning, text, toolCalls } from "../support/fake-provider/index.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { protocols } from "./stream-helpers.js";

const fake = withFakeProvider();

const weatherTool: ToolDefinition = () => ({
  meta: {
    name: "get_weather",
    description: "Current weather for a city",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
  tool: {
    async execute(inputJson) {
      const { city } = JSON.parse(inputJson) as { city: string };
      return city === "Paris" ? "Paris: 18°C" : { output: `unknown city ${city}`, is_error: true };
    },
  },
});

async function runRoundTrip(protocol: ProviderProtocol): Promise<readonly Item[]> {
  fake().queue(
    reasoning(
      ["Two cities, ", "two lookups."],
      toolCalls([
        { name: "get_weather", args: { city: "Paris" }, signature: "fc-sig-1" },
        { name: "get_weather", args: { city: "Atlantis" } },
      ]),
      { signature: "thinking-sig-1", encryptedContent: "enc-reasoning-1", id: "rs_round_1" },
    ),
    text("Paris is 18°C; Atlantis does not exist."),
  );
  const client = createLlmClient({
    protocol,
    baseUrl: fake().baseUrl,
    model: "round-trip-model",
    apiKey: "k",
  });
  const worker = new Worker(client);
  worker.setSystemPrompt("You report the weather.");
  worker.registerTool(weatherTool);
  const locked = worker.lock();
  const result = await locked.run("Weather in Paris and Atlantis?");
  expect(result).toBe("finished");
  expect(fake().requests).toHaveLength(2);
  return locked.history;
}

function historyParts(history: readonly Item[]) {
  const reasoningItem = history.find((item): item is ReasoningItem => item.type === "reasoning");
  const calls = history.filter((item): item is ToolCallItem => item.type === "tool_call");
  expect(calls).toHaveLength(2);
  expect(calls.map((call) => call.arguments)).toEqual(['{"city":"Paris"}', '{"city":"Atlantis"}']);
  // Responses names its message items (msg_...); the id is kept for stored conversations.
  const { id: _messageId, ...lastMessage } = history.at(-1) as Item & { id?: string };
  expect(lastMessage).toEqual({
    type: "message",
    role: "assistant",
    content: [{ type: "text", text: "Paris is 18°C; Atlantis does not exist." }],
  });
  expect(history.filter((item) => item.type === "tool_result")).toEqual([
    { type: "tool_result", call_id: calls[0]!.call_id, output: "Paris: 18°C" },
    { type: "tool_result", call_id: calls[1]!.call_id, output: "unknown city Atlantis", is_error: true },
  ]);
  return { reasoningItem, paris: calls[0]!, atlantis: calls[1]! };
}

describe.each(protocols)("%s tool round trip through the Worker", (protocol) => {
  it("sends turn 2 with the tool calls, their results and the reasoning in the protocol's exact shape", async () => {
    const history = await runRoundTrip(protocol);
    const { reasoningItem, paris, atlantis } = historyParts(history);
    const body = fake().requests[1]!.body as Record<string, unknown>;
    const userText = "Weather in Paris and Atlantis?";
    switch (protocol) {
      case "chat_completions":
        expect(reasoningItem).toEqual({
          type: "reasoning",
          text: "Two cities, two lookups.",
          origin: { provider: "openai-chat", model: "round-trip-model" },
        });
        expect(body.messages).toEqual([
          { role: "system", content: "You report the weather." },
          { role: "user", content: userText },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: paris.call_id,
                type: "function",
                function: { name: "get_weather", arguments: '{"city":"Paris"}' },
              },
              {
                id: atlantis.call_id,
                type: "function",
                function: { name: "get_weather", arguments: '{"city":"Atlantis"}' },
              },
            ],
          },
          { role: "tool", tool_call_id: paris.call_id, content: "Paris: 18°C" },
          { role: "tool", tool_call_id: atlantis.call_id, content: "unknown city Atlantis" },
        ]);
        break;
      case "responses":
        expect(reasoningItem).toEqual({
          type: "reasoning",
          text: "Two cities, two lookups.",
          summary: ["Two cities, two lookups."],
          encrypted_content: "enc-reasoning-1",
          id: "rs_round_1",
          origin: { provider: "openai-responses", model: "round-trip-model" },
        });
        expect(paris.id).toMatch(/^fc_/);
        expect(body.instructions).toBe("You report the weather.");
        expect(body.input).toEqual([
          { type: "message", role: "user", content: [{ type: "input_text", text: userText }] },
          {
            type: "reasoning",
            summary: [{ type: "summary_text", text: "Two cities, two lookups." }],
            encrypted_content: "enc-reasoning-1",
          },
          {
            type: "function_call",
            call_id: paris.call_id,
            name: "get_weather",
            arguments: '{"city":"Paris"}',
          },
          {
            type: "function_call",
            call_id: atlantis.call_id,
            name: "get_weather",
            arguments: '{"city":"Atlantis"}',
          },
          { type: "function_call_output", call_id: paris.call_id, output: "Paris: 18°C" },
          { type: "function_call_output", call_id: atlantis.call_id, output: "unknown city Atlantis" },
        ]);
        break;
      case "anthropic":
        expect(reasoningItem).toEqual({
          type: "reasoning",
          text: "Two cities, two lookups.",
          signature: "thinking-sig-1",
          origin: { provider: "anthropic", model: "round-trip-model" },
        });
        expect(body.system).toEqual([
          { type: "text", text: "You report the weather.", cache_control: { type: "ephemeral" } },
        ]);
        expect(body.messages).toEqual([
          { role: "user", content: [{ type: "text", text: userText }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "Two cities, two lookups.", signature: "thinking-sig-1" },
              { type: "tool_use", id: paris.call_id, name: "get_weather", input: { city: "Paris" } },
              { type: "tool_use", id: atlantis.call_id, name: "get_weather", input: { city: "Atlantis" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: paris.call_id, content: "Paris: 18°C" },
              {
                type: "tool_result",
                tool_use_id: atlantis.call_id,
                content: "unknown city Atlantis",
                is_error: true,
                cache_control: { type: "ephemeral" },
              },
            ],
          },
        ]);
        break;
      case "gemini":
        expect(reasoningItem).toEqual({
          type: "reasoning",
          text: "Two cities, two lookups.",
          signature: "thinking-sig-1",
          origin: { provider: "gemini", model: "round-trip-model" },
        });
        expect(paris.signature).toBe("fc-sig-1");
        expect(paris.call_id).not.toBe(atlantis.call_id);
        expect(body.systemInstruction).toEqual({ parts: [{ text: "You report the weather." }] });
        expect(body.contents).toEqual([
          { role: "user", parts: [{ text: userText }] },
          {
            role: "model",
            parts: [
              { text: "Two cities, two lookups.", thought: true, thoughtSignature: "thinking-sig-1" },
              {
                functionCall: { name: "get_weather", args: { city: "Paris" } },
                thoughtSignature: "fc-sig-1",
              },
              { functionCall: { name: "get_weather", args: { city: "Atlantis" } } },
            ],
          },
          {
            role: "user",
            parts: [
              { functionResponse: { name: "get_weather", response: { output: "Paris: 18°C" } } },
              { functionResponse: { name: "get_weather", response: { error: "unknown city Atlantis" } } },
            ],
          },
        ]);
        break;
      default:
        throw new Error(`unexpected protocol ${protocol}`);
    }
  });
});
