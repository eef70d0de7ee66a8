/**
 * Anthropic Messages against the fake provider: content blocks, thinking with accumulated
 * signatures, redacted thinking, tool use, usage normalization, stop reasons, unknown blocks,
 * and the request shape of a tool round trip.
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
import { createLlmClient } from "../../src/providers/index.js";
import { raw, reasoning, sse, stream, text, toolCalls } from "../support/fake-provider/index.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import {
  ask,
  assertWellFormed,
  clientFor,
  collect,
  reasoningOf,
  retriesOf,
  textOf,
  thinkingOf,
  toolCallsOf,
} from "./stream-helpers.js";

const fake = withFakeProvider();

const client = () => clientFor("anthropic", fake().baseUrl);
const event = (type: string, fields: Record<string, unknown> = {}) => sse({ type, ...fields }, type);
const messageStart = event("message_start", {
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    content: [],
    usage: { input_tokens: 5, output_tokens: 1 },
  },
});
const messageEnd = [
  event("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } }),
  event("message_stop"),
];

describe("anthropic streaming", () => {
  it("streams a text block, passes pings through and completes at message_stop", async () => {
    fake().queue(text(["Hi ", "there"]));
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(textOf(events)).toBe("Hi there");
    expect(events).toContainEqual({ type: "ping" });
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "end_turn" });
  });

  it("accumulates signature deltas and puts text and signature on the thinking stop", async () => {
    fake().queue(
      raw([
        messageStart,
        event("content_block_start", {
          index: 0,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
        event("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "Let me " } }),
        event("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "think." } }),
        event("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "EqQB" } }),
        event("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "Ckgx==" } }),
        event("content_block_stop", { index: 0 }),
        event("content_block_start", { index: 1, content_block: { type: "text", text: "" } }),
        event("content_block_delta", { index: 1, delta: { type: "text_delta", text: "Done." } }),
        event("content_block_stop", { index: 1 }),
        ...messageEnd,
      ]),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(thinkingOf(events)).toBe("Let me think.");
    expect(reasoningOf(events)).toEqual([{ text: "Let me think.", signature: "EqQBCkgx==" }]);
    expect(events.some((e) => e.type === "block_delta" && JSON.stringify(e).includes("EqQB"))).toBe(false);
    expect(textOf(events)).toBe("Done.");
  });

  it("turns redacted_thinking into a thinking block carrying the opaque data", async () => {
    fake().queue(reasoning([], text("ok"), { redacted: true, encryptedContent: "REDACTED-DATA" }));
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(reasoningOf(events)).toEqual([{ text: "", redacted: true, encrypted_content: "REDACTED-DATA" }]);
  });

  it("streams several tool_use blocks from their input_json deltas", async () => {
    fake().queue(
      toolCalls(
        [
          { name: "get_weather", args: { city: "Paris" }, id: "toolu_1", pieces: 5 },
          { name: "get_weather", args: { city: "Rome" }, id: "toolu_2" },
        ],
        { text: "Checking both." },
      ),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(textOf(events)).toBe("Checking both.");
    expect(toolCallsOf(events)).toEqual([
      { id: "toolu_1", name: "get_weather", args: '{"city":"Paris"}', closed: true },
      { id: "toolu_2", name: "get_weather", args: '{"city":"Rome"}', closed: true },
    ]);
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "tool_use" });
  });

  it("gives a tool call without argument deltas the empty object", async () => {
    fake().queue(toolCalls([{ name: "now", args: "", id: "toolu_0" }]));
    const { events } = await collect(client(), ask());
    expect(toolCallsOf(events)).toEqual([{ id: "toolu_0", name: "now", args: "{}", closed: true }]);
  });

  it("normalizes input tokens to include cache reads and writes", async () => {
    fake().queue(text("x", { usage: { input: 1000, output: 50, cached: 800, cacheWrite: 150 } }));
    const { events } = await collect(client(), ask());
    expect(events).toContainEqual({
      type: "usage",
      usage: {
        input_tokens: 1000,
        output_tokens: 50,
        total_tokens: 1050,
        cache_read_tokens: 800,
        cache_write_tokens: 150,
      },
    });
  });

  it("maps max_tokens and refusal stop reasons", async () => {
    fake().queue(text("cut", { stop: "max_tokens" }), text("no", { stop: "content_filter" }));
    expect((await collect(client(), ask())).events.at(-1)).toMatchObject({ stop_reason: "max_tokens" });
    expect((await collect(client(), ask())).events.at(-1)).toMatchObject({ stop_reason: "refusal" });
  });

  it("skips block types it does not handle, with their deltas", async () => {
    fake().queue(
      raw([
        messageStart,
        event("content_block_start", {
          index: 0,
          content_block: { type: "server_tool_use", id: "srv", name: "web_search" },
        }),
        event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: "{}" } }),
        event("content_block_stop", { index: 0 }),
        event("content_block_start", { index: 1, content_block: { type: "text", text: "" } }),
        event("content_block_delta", { index: 1, delta: { type: "citations_delta", citation: {} } }),
        event("content_block_delta", { index: 1, delta: { type: "text_delta", text: "visible" } }),
        event("content_block_stop", { index: 1 }),
        event("brand_new_event", { anything: true }),
        ...messageEnd,
      ]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(textOf(events)).toBe("visible");
    expect(toolCallsOf(events)).toEqual([]);
  });

  it("retries an overloaded error event that came before any content, as the real API sends it", async () => {
    fake().queue(
      raw([messageStart, event("error", { error: { type: "overloaded_error", message: "Overloaded" } })]),
      text("recovered"),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    expect(retriesOf(events).map((retry) => retry.reason)).toEqual([
      "anthropic error overloaded_error: Overloaded",
    ]);
    expect(textOf(events)).toBe("recovered");
  });

  it("turns an overloaded error event after content into a typed, transient api error", async () => {
    fake().queue(
      raw([
        messageStart,
        event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
        event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Par" } }),
        event("error", { error: { type: "overloaded_error", message: "Overloaded" } }),
      ]),
    );
    const { error } = await collect(client(), ask());
    expect(error).toMatchObject({ kind: "api", code: "overloaded_error", transient: true });
    expect(fake().requests).toHaveLength(1);
  });

  it("refuses a stream that splices a second message_start into an open message instead of merging both", async () => {
    const textStart = event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    const textDelta = (text: string) =>
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
    // Each generation has a message id of its own: the second start names another message.
    const secondStart = messageStart.replace('"msg_1"', '"msg_2"');
    fake().queue(
      raw([messageStart, textStart, textDelta("First gen"), secondStart, textStart, textDelta("Second")]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toMatchObject({ kind: "protocol", code: "spliced_stream", transient: true });
    assertWellFormed(events);
    expect(textOf(events)).toBe("First gen");
  });

  it("ignores a message_start repeated with the same message id (a proxy's echo, not a splice)", async () => {
    const textStart = event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    const textDelta = (text: string) =>
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text } });
    fake().queue(
      raw([
        messageStart,
        messageStart,
        textStart,
        textDelta("One answer"),
        event("content_block_stop", { index: 0 }),
        event("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } }),
        event("message_stop", {}),
      ]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(textOf(events)).toBe("One answer");
  });

  it("closes blocks still open at message_stop", async () => {
    fake().queue(
      raw([
        messageStart,
        event("content_block_start", {
          index: 0,
          content_block: { type: "tool_use", id: "t", name: "f", input: {} },
        }),
        event("content_block_delta", {
          index: 0,
          delta: { type: "input_json_delta", partial_json: '{"a":1}' },
        }),
        event("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 3 } }),
        event("message_stop"),
      ]),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(toolCallsOf(events)).toEqual([{ id: "t", name: "f", args: '{"a":1}', closed: true }]);
  });
});

describe("anthropic requests", () => {
  const turnTwo: LlmRequest = {
    system_prompt: "You help.",
    items: [
      userMessage("Weather in Paris and Rome?"),
      reasoningItem("I should call the tool twice.", { signature: "sig-1" }),
      reasoningItem("", { redacted: true, encrypted_content: "opaque" }),
      reasoningItem("Thought from another provider (no signature)"),
      assistantMessage("Checking."),
      toolCall("toolu_1", "get_weather", '{"city":"Paris"}'),
      toolCall("toolu_2", "get_weather", "not json"),
      toolResult("toolu_1", "18°C"),
      toolResult("toolu_2", "bad arguments", true),
    ],
    tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object" } }],
    config: { reasoning: { budget_tokens: 2048 }, stop_sequences: ["STOP"] },
  };

  it("groups the assistant items into one message and sends the results as user tool_result blocks", async () => {
    fake().queue(text("Paris 18°C."));
    await collect(client(), turnTwo);
    const { body, path, headers } = fake().lastRequest;
    expect(path).toBe("/v1/messages");
    expect(headers["x-api-key"]).toBe("test-key");
    expect(headers["anthropic-version"]).toBe("2023-06-01");
    expect(body).toEqual({
      model: "test-model",
      max_tokens: 8192 + 2048,
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Paris and Rome?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "I should call the tool twice.", signature: "sig-1" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "toolu_2", name: "get_weather", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "18°C" },
            {
              type: "tool_result",
              tool_use_id: "toolu_2",
              content: "bad arguments",
              is_error: true,
              cache_control: { type: "ephemeral" },
            },
          ],
        },
      ],
      stream: true,
      system: [{ type: "text", text: "You help.", cache_control: { type: "ephemeral" } }],
      tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object" } }],
      stop_sequences: ["STOP"],
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
  });

  it("puts tool results before user text in a combined user message", async () => {
    fake().queue(text("ok"));
    await collect(client(), {
      items: [
        userMessage("go"),
        toolCall("t1", "f", "{}"),
        userMessage("also this"),
        toolResult("t1", "done"),
      ],
      tools: [],
      config: { max_tokens: 10 },
    });
    const messages = (fake().lastRequest.body as { messages: unknown[] }).messages;
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "done" },
        { type: "text", text: "also this", cache_control: { type: "ephemeral" } },
      ],
    });
  });

  it("sends a plain system string and no cache markers when prompt caching is off", async () => {
    fake().queue(text("ok"));
    const uncached = createLlmClient({
      protocol: "anthropic",
      baseUrl: fake().baseUrl,
      model: "m",
      apiKey: "k",
      promptCaching: false,
    });
    await collect(uncached, { ...ask("hello"), system_prompt: "Sys" });
    expect(fake().lastRequest.body).toMatchObject({
      system: "Sys",
      messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
    });
    expect(fake().lastRequest.rawBody).not.toContain("cache_control");
  });

  it("reaches a server that already has /v1 in its base URL", async () => {
    fake().queue(stream([{ type: "text", deltas: ["v1"] }]));
    const versioned = createLlmClient({
      protocol: "anthropic",
      baseUrl: `${fake().baseUrl}/v1/`,
      model: "m",
      apiKey: "k",
    });
    const { events } = await collect(versioned, ask());
    expect(textOf(events)).toBe("v1");
    expect(fake().lastRequest.path).toBe("/v1/messages");
  });
});
