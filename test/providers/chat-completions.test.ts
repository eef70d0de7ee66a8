/**
 * Chat Completions against the fake provider: streamed text, reasoning in both field
 * spellings, parallel tool calls, usage, finish reasons, local servers, garbage, and the exact
 * request shape of a tool round trip.
 */
import { describe, expect, it } from "vitest";
import { assistantMessage, toolCall, toolResult, userMessage } from "../../src/model/items.js";
import type { LlmRequest } from "../../src/model/llm-client.js";
import { createLlmClient, protocolAdapter } from "../../src/providers/index.js";
import { raw, reasoning, sse, stream, text, toolCalls } from "../support/fake-provider/index.js";
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

const client = () => clientFor("chat_completions", fake().baseUrl);

const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/** A chunk with one choice-0 delta, as servers send it. */
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  sse({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });

describe("chat_completions streaming", () => {
  it("streams text as one block opened before its first delta", async () => {
    fake().queue(text(["Hel", "lo ", "wörld 👋"]));
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(events.slice(0, 3)).toEqual([
      { type: "status", status: "started" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "Hel" } },
    ]);
    expect(textOf(events)).toBe("Hello wörld 👋");
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "end_turn" });
    expect(events).toContainEqual({
      type: "block_stop",
      index: 0,
      block_type: "text",
      stop_reason: "end_turn",
    });
  });

  it("interleaves reasoning_content and text, each switch closing the other block", async () => {
    fake().queue(
      stream([
        { type: "reasoning", deltas: ["first ", "thought"] },
        { type: "text", deltas: ["answer one"] },
        { type: "reasoning", deltas: ["second thought"] },
        { type: "text", deltas: ["answer two"] },
      ]),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    const starts = events.flatMap((event) =>
      event.type === "block_start" ? [[event.index, event.block.type]] : [],
    );
    expect(starts).toEqual([
      [0, "thinking"],
      [1, "text"],
      [2, "thinking"],
      [3, "text"],
    ]);
    expect(reasoningOf(events)).toEqual([{ text: "first thought" }, { text: "second thought" }]);
    expect(textOf(events)).toBe("answer oneanswer two");
  });

  it("reads reasoning from the `reasoning` field too (Ollama, OpenRouter)", async () => {
    fake().queue({ ...reasoning("deep", text("shallow")), reasoningField: "reasoning" });
    const { events } = await collect(client(), ask());
    expect(thinkingOf(events)).toBe("deep");
    expect(textOf(events)).toBe("shallow");
  });

  it("streams one tool call and ends with the tool_use stop reason", async () => {
    fake().queue(toolCalls([{ name: "get_weather", args: { city: "Paris" }, id: "call_1" }]));
    const { events } = await collect(client(), ask("weather?", [weatherTool]));
    assertWellFormed(events);
    expect(toolCallsOf(events)).toEqual([
      { id: "call_1", name: "get_weather", args: '{"city":"Paris"}', closed: true },
    ]);
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "tool_use" });
  });

  it("keeps parallel tool calls apart by index while their arguments arrive interleaved in pieces", async () => {
    fake().queue(
      toolCalls(
        [
          { name: "get_weather", args: { city: "Paris" }, id: "call_a", pieces: 4 },
          { name: "get_weather", args: { city: "Tokyo" }, id: "call_b", pieces: 4 },
          { name: "get_time", args: { zone: "UTC" }, id: "call_c", pieces: 2 },
        ],
        { text: "Let me check." },
      ),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    expect(textOf(events)).toBe("Let me check.");
    expect(toolCallsOf(events)).toEqual([
      { id: "call_a", name: "get_weather", args: '{"city":"Paris"}', closed: true },
      { id: "call_b", name: "get_weather", args: '{"city":"Tokyo"}', closed: true },
      { id: "call_c", name: "get_time", args: '{"zone":"UTC"}', closed: true },
    ]);
    const deltaIndices = events.flatMap((event) =>
      event.type === "block_delta" && event.delta.type === "input_json" ? [event.index] : [],
    );
    expect(deltaIndices.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it("reports usage with cached and reasoning tokens", async () => {
    fake().queue(text("x", { usage: { input: 120, output: 30, cached: 100, reasoning: 12 } }));
    const { events } = await collect(client(), ask());
    expect(events).toContainEqual({
      type: "usage",
      usage: {
        input_tokens: 120,
        output_tokens: 30,
        total_tokens: 150,
        cache_read_tokens: 100,
        reasoning_tokens: 12,
      },
    });
  });

  it("maps finish reasons length and content_filter", async () => {
    fake().queue(text("cut", { stop: "max_tokens" }), text("no", { stop: "content_filter" }));
    const both = client();
    expect((await collect(both, ask())).events.at(-1)).toEqual({
      type: "status",
      status: "completed",
      stop_reason: "max_tokens",
    });
    expect((await collect(both, ask())).events.at(-1)).toEqual({
      type: "status",
      status: "completed",
      stop_reason: "content_filter",
    });
  });

  it("closes tool blocks at the finish reason even when the server says `stop` and sends no [DONE]", async () => {
    fake().queue(
      raw([
        chunk({
          role: "assistant",
          tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: '{"a":' } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
        chunk({}, "stop"),
      ]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(toolCallsOf(events)).toEqual([{ id: "c1", name: "f", args: '{"a":1}', closed: true }]);
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "tool_use" });
  });

  it("gives an id to a tool call that has none and waits for its name before starting it", async () => {
    fake().queue(
      raw([
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { name: "search", arguments: '"x"}' } }] }),
        chunk({}, "tool_calls"),
        sse("[DONE]"),
      ]),
    );
    const { events } = await collect(client(), ask());
    assertWellFormed(events);
    const [call] = toolCallsOf(events);
    expect(call?.name).toBe("search");
    expect(call?.args).toBe('{"q":"x"}');
    expect(call?.id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it("passes tool arguments that are not JSON through verbatim (the tool reports the error)", async () => {
    fake().queue(toolCalls([{ name: "f", args: '{"broken": tru', id: "c9" }]));
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    expect(toolCallsOf(events)[0]?.args).toBe('{"broken": tru');
  });

  it("ignores malformed fields instead of crashing", async () => {
    fake().queue(
      raw([
        sse({ choices: "nonsense", usage: 5 }),
        sse({ choices: [null, { index: 0, delta: { content: 42, tool_calls: [7, { index: "x" }] } }] }),
        chunk({ content: "ok" }),
        chunk({}, "stop"),
        sse("[DONE]"),
      ]),
    );
    const { events, error } = await collect(client(), ask());
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("ok");
  });

  it("rejects a tool call that never names its function with a protocol error", async () => {
    fake().queue(
      raw([
        chunk({ tool_calls: [{ index: 0, id: "c", function: { arguments: "{}" } }] }),
        chunk({}, "tool_calls"),
      ]),
    );
    const { error } = await collect(client(), ask());
    expect(error?.kind).toBe("protocol");
  });
});

describe("chat_completions against a local server", () => {
  it("works with an Ollama-style base URL, no API key and the `reasoning` field", async () => {
    fake().queue({ ...reasoning("hmm", text("local answer")), reasoningField: "reasoning" });
    const local = createLlmClient({
      protocol: "chat_completions",
      baseUrl: `${fake().baseUrl}/v1`,
      model: "llama3.2",
    });
    const { events, error } = await collect(local, { ...ask(), config: { max_tokens: 64 } });
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("local answer");
    expect(thinkingOf(events)).toBe("hmm");
    const request = fake().lastRequest;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toMatchObject({ model: "llama3.2", max_tokens: 64, stream: true });
    expect(request.body).not.toHaveProperty("max_completion_tokens");
  });
});

describe("chat_completions requests", () => {
  const turnTwo: LlmRequest = {
    system_prompt: "You are terse.",
    items: [
      userMessage("Weather in Paris and Tokyo?"),
      { type: "reasoning", text: "two lookups", signature: "not-sent" },
      assistantMessage("Checking."),
      toolCall("call_a", "get_weather", '{"city":"Paris"}'),
      toolCall("call_b", "get_weather", '{"city":"Tokyo"}'),
      toolResult("call_a", "18°C"),
      toolResult("call_b", "no data", true),
    ],
    tools: [weatherTool],
    config: { max_tokens: 100, temperature: 0.2, stop_sequences: ["END"], reasoning: { effort: "low" } },
  };

  it("sends turn 2 of a tool round trip in the exact Chat Completions shape", async () => {
    fake().queue(text("Paris is mild."));
    await collect(client(), turnTwo);
    const { body, headers, path } = fake().lastRequest;
    expect(path).toBe("/v1/chat/completions");
    expect(headers.authorization).toBe("Bearer test-key");
    expect(body).toEqual({
      model: "test-model",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Weather in Paris and Tokyo?" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            {
              id: "call_a",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
            {
              id: "call_b",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Tokyo"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "18°C" },
        { role: "tool", tool_call_id: "call_b", content: "no data" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Weather for a city",
            parameters: weatherTool.input_schema,
          },
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 100,
      temperature: 0.2,
      stop: ["END"],
      reasoning_effort: "low",
    });
  });

  it("uses max_completion_tokens for remote hosts and max_tokens when the profile asks for it", () => {
    const request = { ...ask(), config: { max_tokens: 10 } };
    const remote = protocolAdapter({ protocol: "chat_completions", model: "gpt-x" }, "k").buildHttpRequest(
      request,
    );
    expect(remote.url).toBe("https://api.openai.com/v1/chat/completions");
    expect(JSON.parse(remote.body)).toMatchObject({ max_completion_tokens: 10 });
    expect(JSON.parse(remote.body)).not.toHaveProperty("max_tokens");
    const legacy = protocolAdapter(
      {
        protocol: "chat_completions",
        baseUrl: "https://vllm.internal/v1",
        model: "m",
        maxTokensField: "max_tokens",
      },
      undefined,
    ).buildHttpRequest(request);
    expect(JSON.parse(legacy.body)).toMatchObject({ max_tokens: 10 });
    expect(legacy.headers).not.toHaveProperty("authorization");
  });

  it("sends text that came between tool calls and their results after the results", () => {
    const { body } = protocolAdapter(
      { protocol: "chat_completions", model: "m" },
      undefined,
    ).buildHttpRequest({
      items: [userMessage("go"), toolCall("c1", "f", "{}"), assistantMessage("after"), toolResult("c1", "r")],
      tools: [],
      config: {},
    });
    expect(JSON.parse(body).messages).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      // A tool message must follow its call's message at once, so the text waits for it.
      { role: "tool", tool_call_id: "c1", content: "r" },
      { role: "assistant", content: "after" },
    ]);
  });
});
