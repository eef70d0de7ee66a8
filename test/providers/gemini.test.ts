/**
 * Gemini streamGenerateContent against the fake provider: text and thought parts, function
 * calls with unique ids and their thought signatures, usage metadata, finish reasons, blocked
 * prompts, and the request shape of a tool round trip.
 */
import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  reasoning as reasoningItem,
  toolCall,
  toolResult,
  userMessage,
} from "../../src/model/items.js";
import type { LlmRequest } from "../../src/model/llm-client.js";
import { raw, reasoning, sse, text, toolCalls } from "../support/fake-provider/index.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import {
  ask,
  assertWellFormed,
  clientFor,
  collect,
  reasoningOf,
  textOf,
  thinkingOf,
  toolCallsOf,
} from "./stream-helpers.js";

const fake = withFakeProvider();

const client = () => clientFor("gemini", fake().baseUrl, {}, "gemini-2.5-flash");
const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
  sse({ candidates: [{ content: { role: "model", parts }, index: 0, ...extra }] }, undefined, "\r\n");

describe("gemini streaming", () => {
  it("streams text parts as one text block closed at the finish reason", async () => {
    fake().queue(text(["Ciao", " mondo"]));
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(textOf(events)).toBe("Ciao mondo");
    expect(events).toContainEqual({
      type: "block_stop",
      index: 0,
      block_type: "text",
      stop_reason: "end_turn",
    });
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "end_turn" });
    expect(fake().lastRequest.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  });

  it("streams thought parts as thinking and keeps their signature", async () => {
    fake().queue(reasoning(["Consider", " options"], text("Pick B"), { signature: "CiQB-thought-sig" }));
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(thinkingOf(events)).toBe("Consider options");
    expect(textOf(events)).toBe("Pick B");
    expect(reasoningOf(events)).toEqual([{ text: "Consider options", signature: "CiQB-thought-sig" }]);
  });

  it("keeps each signature that came on a text part on that text, none lost (streamed as Gemini 3 does)", async () => {
    fake().queue(
      raw([
        chunk([{ text: "Plain " }]),
        chunk([{ text: "answer", thoughtSignature: "text-sig-1" }]),
        chunk([{ text: " and more" }]),
        // Gemini 3 streams the last signature on a chunk of its own with empty text.
        chunk([{ text: "", thoughtSignature: "text-sig-2" }], { finishReason: "STOP" }),
      ]),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(textOf(events)).toBe("Plain answer and more");
    expect(reasoningOf(events)).toEqual([]);
    const signedStops = events.flatMap((event) =>
      event.type === "block_stop" && event.signature !== undefined ? [event.signature] : [],
    );
    expect(signedStops).toEqual(["text-sig-1", "text-sig-2"]);
  });

  it("gives two calls to the same function distinct ids and keeps the signature on its call", async () => {
    fake().queue(
      toolCalls([
        { name: "get_weather", args: { city: "Paris" }, signature: "fc-sig" },
        { name: "get_weather", args: { city: "Lima" } },
      ]),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    const calls = toolCallsOf(events);
    expect(calls.map(({ name, args, signature, closed }) => ({ name, args, signature, closed }))).toEqual([
      { name: "get_weather", args: '{"city":"Paris"}', signature: "fc-sig", closed: true },
      { name: "get_weather", args: '{"city":"Lima"}', signature: undefined, closed: true },
    ]);
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
    expect(calls.every((call) => call.item_id === undefined)).toBe(true);
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "tool_use" });
  });

  it("uses Gemini's own call id when it sends one", async () => {
    fake().queue(toolCalls([{ name: "f", args: {}, id: "gem-call-7" }]));
    const { events } = await collect(client(), ask());
    expect(toolCallsOf(events)).toEqual([
      { id: "gem-call-7", name: "f", args: "{}", item_id: "gem-call-7", closed: true },
    ]);
  });

  it("reports usage metadata once, with thoughts counted as output", async () => {
    fake().queue(text(["a", "b", "c"], { usage: { input: 500, output: 120, reasoning: 80, cached: 300 } }));
    const { events } = await collect(client(), ask());
    const usages = events.filter((event) => event.type === "usage");
    expect(usages).toEqual([
      {
        type: "usage",
        usage: {
          input_tokens: 500,
          output_tokens: 120,
          total_tokens: 620,
          cache_read_tokens: 300,
          reasoning_tokens: 80,
        },
      },
    ]);
  });

  it("maps MAX_TOKENS and SAFETY finish reasons", async () => {
    fake().queue(text("cut", { stop: "max_tokens" }), text("unsafe", { stop: "content_filter" }));
    expect((await collect(client(), ask())).events.at(-1)).toMatchObject({ stop_reason: "max_tokens" });
    expect((await collect(client(), ask())).events.at(-1)).toMatchObject({ stop_reason: "content_filter" });
  });

  it("reports a malformed function call as a typed api error", async () => {
    fake().queue(
      raw([chunk([], { finishReason: "MALFORMED_FUNCTION_CALL", finishMessage: "bad call syntax" })]),
    );
    const { error } = await collect(client(), ask());
    expect(error).toMatchObject({ kind: "api", code: "MALFORMED_FUNCTION_CALL" });
    expect(error?.message).toContain("bad call syntax");
  });

  it("ends a blocked prompt with the content_filter stop reason", async () => {
    fake().queue(
      raw([sse({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 4 } })]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "content_filter" });
  });

  it("ignores parts it does not know", async () => {
    fake().queue(
      raw([
        chunk([
          { executableCode: { code: "print(1)" } },
          { inlineData: { mimeType: "image/png", data: "" } },
          7,
        ]),
        chunk([{ text: "fine" }], { finishReason: "STOP" }),
      ]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("fine");
  });
});

describe("gemini requests", () => {
  const turnTwo: LlmRequest = {
    system_prompt: "Answer in French.",
    items: [
      userMessage("Weather in Paris and Lima?"),
      reasoningItem("Two lookups.", { signature: "thought-sig" }),
      reasoningItem("unsigned thought"),
      assistantMessage("Je vérifie."),
      { ...toolCall("call_x", "get_weather", '{"city":"Paris"}'), signature: "fc-sig" },
      toolCall("call_y", "get_weather", '{"city":"Lima"}'),
      toolResult("call_x", "18°C"),
      toolResult("call_y", "unknown city", true),
    ],
    tools: [
      {
        name: "get_weather",
        description: "Weather",
        input_schema: { type: "object", additionalProperties: false },
      },
    ],
    config: { max_tokens: 256, temperature: 0.5, top_k: 40, reasoning: { budget_tokens: 1024 } },
  };

  it("sends turn 2 with functionCall parts (signature in place) and functionResponse parts", async () => {
    fake().queue(text("18°C à Paris."));
    await collect(client(), turnTwo);
    const { body, headers } = fake().lastRequest;
    expect(headers["x-goog-api-key"]).toBe("test-key");
    expect(body).toEqual({
      contents: [
        { role: "user", parts: [{ text: "Weather in Paris and Lima?" }] },
        {
          role: "model",
          parts: [
            { text: "Two lookups.", thought: true, thoughtSignature: "thought-sig" },
            { text: "Je vérifie." },
            { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "fc-sig" },
            { functionCall: { name: "get_weather", args: { city: "Lima" } } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "get_weather", response: { output: "18°C" } } },
            { functionResponse: { name: "get_weather", response: { error: "unknown city" } } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: "Answer in French." }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: "get_weather",
              description: "Weather",
              parametersJsonSchema: { type: "object", additionalProperties: false },
            },
          ],
        },
      ],
      generationConfig: {
        maxOutputTokens: 256,
        temperature: 0.5,
        topK: 40,
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
    });
  });

  it("echoes Gemini's own call ids in functionCall and functionResponse", async () => {
    fake().queue(text("ok"));
    await collect(client(), {
      items: [userMessage("go"), { ...toolCall("gem-1", "f", "{}"), id: "gem-1" }, toolResult("gem-1", "r")],
      tools: [],
      config: {},
    });
    const contents = (fake().lastRequest.body as { contents: unknown[] }).contents;
    expect(contents.slice(1)).toEqual([
      { role: "model", parts: [{ functionCall: { name: "f", args: {}, id: "gem-1" } }] },
      { role: "user", parts: [{ functionResponse: { name: "f", response: { output: "r" }, id: "gem-1" } }] },
    ]);
  });
});
