/**
 * OpenAI Responses against the fake provider: output items, text deltas, reasoning summaries
 * with encrypted content kept, tool calls with their item ids, usage, incomplete and failed
 * responses, unknown events, and the request shape of a tool round trip.
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

const client = () => clientFor("responses", fake().baseUrl);

/** One Responses event. */
const event = (type: string, fields: Record<string, unknown> = {}) => sse({ type, ...fields }, type);
const created = event("response.created", { response: { id: "resp_1", status: "in_progress" } });
const completed = (usage: Record<string, unknown> = {}) =>
  event("response.completed", { response: { id: "resp_1", status: "completed", usage } });

describe("responses streaming", () => {
  it("streams output text and completes", async () => {
    fake().queue(text(["Bon", "jour"]));
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(textOf(events)).toBe("Bonjour");
    expect(events[0]).toEqual({ type: "status", status: "started" });
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "end_turn" });
  });

  it("streams reasoning summaries and keeps the item id, summary and encrypted content for the stop", async () => {
    fake().queue(
      reasoning(["Think", "ing..."], text("Answer"), { id: "rs_42", encryptedContent: "gAAAA-secret" }),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(thinkingOf(events)).toBe("Thinking...");
    expect(reasoningOf(events)).toEqual([
      { id: "rs_42", text: "Thinking...", summary: ["Thinking..."], encrypted_content: "gAAAA-secret" },
    ]);
    const thinkingStart = events.findIndex((e) => e.type === "block_start" && e.block.type === "thinking");
    const textStart = events.findIndex((e) => e.type === "block_start" && e.block.type === "text");
    expect(thinkingStart).toBeLessThan(textStart);
  });

  it("joins several summary parts into one thinking block separated by a blank line", async () => {
    const at = { item_id: "rs_1", output_index: 0 };
    fake().queue(
      raw([
        created,
        event("response.output_item.added", {
          output_index: 0,
          item: { id: "rs_1", type: "reasoning", summary: [] },
        }),
        event("response.reasoning_summary_part.added", {
          ...at,
          summary_index: 0,
          part: { type: "summary_text", text: "" },
        }),
        event("response.reasoning_summary_text.delta", { ...at, summary_index: 0, delta: "**Plan**" }),
        event("response.reasoning_summary_part.added", {
          ...at,
          summary_index: 1,
          part: { type: "summary_text", text: "" },
        }),
        event("response.reasoning_summary_text.delta", { ...at, summary_index: 1, delta: "Do it" }),
        event("response.output_item.done", {
          output_index: 0,
          item: {
            id: "rs_1",
            type: "reasoning",
            summary: [
              { type: "summary_text", text: "**Plan**" },
              { type: "summary_text", text: "Do it" },
            ],
            encrypted_content: "enc",
          },
        }),
        completed(),
      ]),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(events.filter((e) => e.type === "block_start")).toHaveLength(1);
    expect(thinkingOf(events)).toBe("**Plan**\n\nDo it");
    expect(reasoningOf(events)).toEqual([
      { id: "rs_1", text: "**Plan**\n\nDo it", summary: ["**Plan**", "Do it"], encrypted_content: "enc" },
    ]);
  });

  it("emits a thinking block for a reasoning item that arrives with no deltas, only encrypted content", async () => {
    fake().queue(reasoning([], text("Done."), { id: "rs_9", encryptedContent: "opaque" }));
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(reasoningOf(events)).toEqual([{ id: "rs_9", text: "", encrypted_content: "opaque" }]);
  });

  it("reads raw reasoning_text deltas (open-weight models) as thinking", async () => {
    fake().queue(
      raw([
        created,
        event("response.output_item.added", {
          output_index: 0,
          item: { id: "rs_2", type: "reasoning", summary: [] },
        }),
        event("response.reasoning_text.delta", {
          item_id: "rs_2",
          output_index: 0,
          content_index: 0,
          delta: "raw cot",
        }),
        event("response.output_item.done", {
          output_index: 0,
          item: { id: "rs_2", type: "reasoning", summary: [] },
        }),
        completed(),
      ]),
    );
    const { events } = await collect(client(), ask());
    expect(reasoningOf(events)).toEqual([{ id: "rs_2", text: "raw cot" }]);
  });

  it("streams tool calls with call_id as id and the fc_ item id alongside", async () => {
    fake().queue(
      toolCalls([
        { name: "get_weather", args: { city: "Paris" }, id: "call_p" },
        { name: "get_weather", args: { city: "Oslo" }, id: "call_o" },
      ]),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    const calls = toolCallsOf(events);
    expect(calls.map(({ id, name, args, closed }) => ({ id, name, args, closed }))).toEqual([
      { id: "call_p", name: "get_weather", args: '{"city":"Paris"}', closed: true },
      { id: "call_o", name: "get_weather", args: '{"city":"Oslo"}', closed: true },
    ]);
    expect(calls.every((call) => call.item_id?.startsWith("fc_"))).toBe(true);
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "tool_use" });
  });

  it("takes the arguments from the done events when no argument deltas came", async () => {
    const item = { id: "fc_1", type: "function_call", call_id: "call_1", name: "f", arguments: "" };
    fake().queue(
      raw([
        created,
        event("response.output_item.added", { output_index: 0, item }),
        event("response.function_call_arguments.done", {
          item_id: "fc_1",
          output_index: 0,
          arguments: '{"x":1}',
        }),
        event("response.output_item.done", { output_index: 0, item: { ...item, arguments: '{"x":1}' } }),
        completed(),
      ]),
    );
    const { events } = await collect(client(), ask());
    expect(toolCallsOf(events)).toEqual([
      { id: "call_1", name: "f", args: '{"x":1}', item_id: "fc_1", closed: true },
    ]);
  });

  it("reports usage with cached and reasoning tokens", async () => {
    fake().queue(text("x", { usage: { input: 2000, output: 300, cached: 1536, reasoning: 256 } }));
    const { events } = await collect(client(), ask());
    expect(events).toContainEqual({
      type: "usage",
      usage: {
        input_tokens: 2000,
        output_tokens: 300,
        total_tokens: 2300,
        cache_read_tokens: 1536,
        reasoning_tokens: 256,
      },
    });
  });

  it("ends an incomplete response normally with the max_tokens or content_filter stop reason", async () => {
    fake().queue(text("trunc", { stop: "max_tokens" }), text("filtered", { stop: "content_filter" }));
    const first = await collect(client(), ask());
    expect(first.error).toBeUndefined();
    assertWellFormed(first.events);
    expect(first.events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "max_tokens" });
    const second = await collect(client(), ask());
    expect(second.events.at(-1)).toEqual({
      type: "status",
      status: "completed",
      stop_reason: "content_filter",
    });
  });

  it("turns response.failed into a typed api error, closing the open blocks first", async () => {
    fake().queue(
      raw([
        created,
        event("response.output_text.delta", { output_index: 0, content_index: 0, delta: "half" }),
        event("response.failed", {
          response: {
            id: "resp_1",
            status: "failed",
            error: { code: "server_error", message: "The model crashed" },
          },
        }),
      ]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toMatchObject({ kind: "api", code: "server_error" });
    expect(error?.message).toContain("The model crashed");
    expect(textOf(events)).toBe("half");
    assertWellFormed(events);
  });

  it("ignores event types it does not know", async () => {
    fake().queue(
      raw([
        created,
        event("response.output_text.annotation.added", {
          output_index: 0,
          annotation: { type: "url_citation" },
        }),
        event("response.web_search_call.in_progress", { output_index: 1 }),
        event("response.something_new", { whatever: [1, 2, 3] }),
        event("response.output_text.delta", { output_index: 0, content_index: 0, delta: "still here" }),
        completed(),
      ]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(textOf(events)).toBe("still here");
  });
});

describe("responses requests", () => {
  const turnTwo: LlmRequest = {
    system_prompt: "Be brief.",
    items: [
      userMessage("Weather in Paris?"),
      reasoningItem("Need a lookup.", {
        id: "rs_1",
        summary: ["Need a lookup."],
        encrypted_content: "enc-1",
      }),
      reasoningItem("Anthropic thought", { signature: "sig" }),
      assistantMessage("Looking."),
      { ...toolCall("call_1", "get_weather", '{"city":"Paris"}'), id: "fc_1" },
      toolResult("call_1", "18°C"),
    ],
    tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object" } }],
    config: { max_tokens: 500, reasoning: { effort: "high" } },
  };

  it("sends turn 2 with the reasoning's encrypted content, the call and its output (stateless: no item ids)", async () => {
    fake().queue(text("18°C in Paris."));
    await collect(clientFor("responses", fake().baseUrl, {}, "gpt-5-mini"), turnTwo);
    const { body, path, headers } = fake().lastRequest;
    expect(path).toBe("/v1/responses");
    expect(headers.authorization).toBe("Bearer test-key");
    expect(body).toEqual({
      model: "gpt-5-mini",
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "Weather in Paris?" }] },
        {
          type: "reasoning",
          summary: [{ type: "summary_text", text: "Need a lookup." }],
          encrypted_content: "enc-1",
        },
        { type: "message", role: "assistant", content: "Looking." },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "call_1", output: "18°C" },
      ],
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      instructions: "Be brief.",
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object" },
          strict: false,
        },
      ],
      parallel_tool_calls: true,
      max_output_tokens: 500,
      reasoning: { summary: "auto", effort: "high" },
    });
  });

  it("sends item ids when the profile stores responses", async () => {
    fake().queue(text("ok"));
    const stored = createLlmClient({
      protocol: "responses",
      baseUrl: fake().baseUrl,
      model: "m",
      apiKey: "k",
      store: true,
    });
    await collect(stored, turnTwo);
    const input = (fake().lastRequest.body as { input: Record<string, unknown>[] }).input;
    expect(input[1]).toMatchObject({ type: "reasoning", id: "rs_1", encrypted_content: "enc-1" });
    expect(input[3]).toMatchObject({ type: "function_call", id: "fc_1", call_id: "call_1" });
    expect(fake().lastRequest.body).toMatchObject({ store: true });
    expect(fake().lastRequest.body).not.toHaveProperty("include");
  });
});
