/**
 * Setups real users hit that were refused on every request or every tool loop, or read wrong,
 * reproduced with the vendors' own stream shapes and refusals in the fake provider and run
 * through the real client (and the real Worker where a second request matters).
 */
import { describe, expect, it } from "vitest";
import type { Item } from "../../src/model/items.js";
import { reasoning as reasoningItem, toolCall, toolResult, userMessage } from "../../src/model/items.js";
import type { ToolDefinition } from "../../src/model/tools.js";
import { FieldRefusals } from "../../src/providers/field-refusals.js";
import { createLlmClient, type ProviderProfile, protocolAdapter } from "../../src/providers/index.js";
import { Worker } from "../../src/worker/index.js";
import { httpError, raw, reasoning, text, toolCalls } from "../support/fake-provider/index.js";
import { vendorRejection } from "../support/fake-provider/rule-book.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { ask, assertWellFormed, collect, textOf, toolCallsOf } from "./stream-helpers.js";

const fake = withFakeProvider({ script: () => text("unexpected extra request") });

const lookupTool: ToolDefinition = () => ({
  meta: { name: "lookup", description: "Look a word up", input_schema: { type: "object" } },
  tool: { execute: async () => "found" },
});

function profile(protocol: ProviderProfile["protocol"], model: string, extra: Partial<ProviderProfile> = {}) {
  return { protocol, model, baseUrl: fake().baseUrl, apiKey: "k", ...extra } as ProviderProfile;
}

/** A client with its own refusal memory (so tests do not share what servers refused). */
function clientOf(p: ProviderProfile, refusals = new FieldRefusals()) {
  return createLlmClient(p, { retry: { maxAttempts: 1 }, fieldRefusals: refusals });
}

/** One user turn through a Worker with the lookup tool; the history. */
async function runTurn(client: ReturnType<typeof createLlmClient>, input: string): Promise<readonly Item[]> {
  const worker = new Worker(client);
  worker.registerTool(lookupTool);
  const locked = worker.lock();
  expect(await locked.run(input)).toBe("finished");
  return locked.history;
}

const body = (index: number) => fake().requests[index]!.body as Record<string, unknown>;

describe("refused on every request by default, fixed", () => {
  it("1. sends Mistral's API neither stream_options nor max_completion_tokens nor reasoning_content", () => {
    const adapter = protocolAdapter(
      { protocol: "chat_completions", model: "mistral-large-latest", baseUrl: "https://api.mistral.ai/v1" },
      "k",
      new FieldRefusals(),
    );
    const history: Item[] = [
      userMessage("go"),
      reasoningItem("thinking", { origin: { provider: "openai-chat", model: "mistral-large-latest" } }),
      toolCall("c1", "lookup", "{}"),
      toolResult("c1", "ok"),
    ];
    const built = JSON.parse(
      adapter.buildHttpRequest({
        items: history,
        tools: [],
        config: { max_tokens: 100, top_k: 5, reasoning: { effort: "high" } },
      }).body,
    ) as Record<string, unknown>;
    expect(built.stream_options).toBeUndefined();
    expect(built.max_tokens).toBe(100);
    expect(vendorRejection("chat_completions", built, "mistral-large-latest", new Map())).toBeUndefined();
  });

  it("1. sends a strict server's request again without the fields its 422 names, once, and never again", async () => {
    fake().queue(text("first"), text("second"));
    const refusals = new FieldRefusals();
    // A Mistral model id on a base URL the client does not know as Mistral's: the 422 teaches it.
    const mistral = profile("chat_completions", "devstral-2512", { maxTokensField: "max_completion_tokens" });
    const first = await collect(clientOf(mistral, refusals), { ...ask(), config: { max_tokens: 50 } });
    expect(first.error).toBeUndefined();
    expect(textOf(first.events)).toBe("first");
    const notice = first.events.find((event) => event.type === "retry");
    expect(notice).toMatchObject({
      retry: { status: 422, delay_ms: 0, adjusted: ["stream_options", "max_completion_tokens"] },
    });
    expect(fake().requests).toHaveLength(2);
    expect(body(1).stream_options).toBeUndefined();
    expect(body(1).max_tokens).toBe(50);
    // Another client of the same profile (a later session) sends it right the first time.
    const second = await collect(clientOf(mistral, refusals), { ...ask(), config: { max_tokens: 50 } });
    expect(textOf(second.events)).toBe("second");
    expect(fake().requests).toHaveLength(3);
    expect(body(2).stream_options).toBeUndefined();
  });

  it("2. gives Kimi K2.5 its reasoning_content back on a thinking tool loop (decided by model family)", async () => {
    fake().queue(
      reasoning("I should look it up.", toolCalls([{ name: "lookup", args: { word: "skein" } }])),
      text("Yarn."),
    );
    await runTurn(clientOf(profile("chat_completions", "moonshotai/kimi-k2.5")), "What is a skein?");
    const assistant = (body(1).messages as Record<string, unknown>[]).find((m) => m.role === "assistant");
    expect(assistant?.reasoning_content).toBe("I should look it up.");
    expect(fake().requests).toHaveLength(2);
  });

  it("3a. keeps Gemini 3's signature from extra_content (Google's OpenAI endpoint) and sends it back", async () => {
    fake().queue(
      toolCalls([{ name: "lookup", args: { word: "skein" }, signature: "sig-google" }]),
      text("Yarn."),
    );
    const history = await runTurn(clientOf(profile("chat_completions", "gemini-3-flash-preview")), "Skein?");
    expect(history.find((item) => item.type === "tool_call")).toMatchObject({ signature: "sig-google" });
    const assistant = (body(1).messages as Record<string, unknown>[]).find((m) => m.role === "assistant");
    expect(assistant?.tool_calls).toEqual([
      {
        id: expect.any(String),
        type: "function",
        function: { name: "lookup", arguments: '{"word":"skein"}' },
        extra_content: { google: { thought_signature: "sig-google" } },
      },
    ]);
    expect(fake().requests).toHaveLength(2);
  });

  it("3b. keeps OpenRouter's reasoning_details (merged from their pieces) and sends them back", async () => {
    const details = [
      { type: "reasoning.text", text: "Looking it up now.", format: "google-gemini-v1" },
      { type: "reasoning.encrypted", data: "opaque-signature", format: "google-gemini-v1" },
    ];
    fake().queue(
      { ...toolCalls([{ name: "lookup", args: { word: "skein" } }]), reasoningDetails: details },
      text("Yarn."),
    );
    await runTurn(clientOf(profile("chat_completions", "google/gemini-3-pro-preview")), "Skein?");
    const assistant = (body(1).messages as Record<string, unknown>[]).find((m) => m.role === "assistant");
    expect(assistant?.reasoning_details).toEqual([
      { index: 0, ...details[0] },
      { index: 1, ...details[1] },
    ]);
    expect(fake().requests).toHaveLength(2);
  });

  it("4. sends a Responses request again without reasoning.summary for an unverified organisation, and remembers", async () => {
    const unverified = JSON.stringify({
      error: {
        message:
          "Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.",
        type: "invalid_request_error",
        param: "reasoning.summary",
        code: "unsupported_value",
      },
    });
    fake().queue(httpError(400, { body: unverified }), text("first"), text("second"));
    const refusals = new FieldRefusals();
    const gpt5 = profile("responses", "gpt-5");
    const config = { reasoning: { effort: "high" as const } };
    const first = await collect(clientOf(gpt5, refusals), { ...ask(), config });
    expect(first.error).toBeUndefined();
    expect(body(0).reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(body(1).reasoning).toEqual({ effort: "high" });
    await collect(clientOf(gpt5, refusals), { ...ask(), config });
    expect(body(2).reasoning).toEqual({ effort: "high" });
  });

  it("4. fails at once when the adjusted request is refused too (one adjusted retry, no loop)", async () => {
    const refusal = (param: string) =>
      httpError(400, {
        body: JSON.stringify({ error: { message: `bad ${param}`, type: "invalid_request_error", param } }),
      });
    fake().queue(refusal("reasoning.summary"), refusal("include"));
    const { error } = await collect(clientOf(profile("responses", "gpt-5")), {
      ...ask(),
      config: { reasoning: { effort: "low" } },
    });
    expect(error).toMatchObject({ kind: "http", status: 400 });
    expect(fake().requests).toHaveLength(2);
  });
});

describe("read wrong, fixed", () => {
  it("9. sends Claude Sonnet 4.5 the temperature alone when both temperature and top_p are set", async () => {
    fake().queue(text("ok"), text("ok"));
    for (const model of ["claude-sonnet-4-5", "claude-opus-4-1"]) {
      const { error } = await collect(clientOf(profile("anthropic", model)), {
        ...ask(),
        config: { temperature: 0.3, top_p: 0.9 },
      });
      expect(error).toBeUndefined();
    }
    expect(body(0)).toMatchObject({ temperature: 0.3 });
    expect(body(0).top_p).toBeUndefined();
    expect(fake().requests).toHaveLength(2);
  });

  it('10. keeps a tool call whose chunks carry finish_reason "" until the real finish', async () => {
    fake().queue({
      ...toolCalls([{ name: "lookup", args: { word: "skein" }, pieces: 4 }]),
      finishReason: "",
    });
    const { events, error } = await collect(clientOf(profile("chat_completions", "local-model")), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(toolCallsOf(events).map((call) => call.args)).toEqual(['{"word":"skein"}']);
  });

  it("12. waits the RetryInfo delay of a Gemini 429 RESOURCE_EXHAUSTED before retrying", async () => {
    const exhausted = JSON.stringify({
      error: {
        code: 429,
        message: "Resource has been exhausted (e.g. check quota).",
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "0.3s" }],
      },
    });
    fake().queue(httpError(429, { body: exhausted }), text("ok"));
    const client = createLlmClient(profile("gemini", "gemini-2.5-flash"), { random: () => 0 });
    const { events, error } = await collect(client, ask());
    expect(error).toBeUndefined();
    expect(events.find((event) => event.type === "retry")).toMatchObject({ retry: { delay_ms: 300 } });
  });

  it("12. gives up at once when the RetryInfo delay lies beyond the retry budget", async () => {
    const exhausted = JSON.stringify({
      error: {
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        message: "quota",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "3600s" }],
      },
    });
    fake().queue(httpError(429, { body: exhausted }));
    const { error } = await collect(createLlmClient(profile("gemini", "gemini-2.5-flash")), ask());
    expect(error).toMatchObject({ status: 429, retryAfterMs: 3_600_000 });
    expect(fake().requests).toHaveLength(1);
  });

  it.each([
    [
      "chat_completions",
      {
        id: "chatcmpl-1",
        object: "chat.completion",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: "Whole answer.",
              tool_calls: [
                { id: "c1", type: "function", function: { name: "lookup", arguments: '{"a":1}' } },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      },
    ],
    [
      "anthropic",
      {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [
          { type: "text", text: "Whole answer." },
          { type: "tool_use", id: "c1", name: "lookup", input: { a: 1 } },
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 3, output_tokens: 4 },
      },
    ],
    [
      "responses",
      {
        id: "resp_1",
        object: "response",
        status: "completed",
        output: [
          {
            id: "msg_1",
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text: "Whole answer.", annotations: [] }],
          },
          { id: "fc_1", type: "function_call", call_id: "c1", name: "lookup", arguments: '{"a":1}' },
        ],
        usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
      },
    ],
    [
      "gemini",
      [
        {
          candidates: [
            {
              content: {
                role: "model",
                parts: [
                  { text: "Whole answer." },
                  { functionCall: { name: "lookup", args: { a: 1 }, id: "c1" } },
                ],
              },
              finishReason: "STOP",
            },
          ],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4 },
        },
      ],
    ],
  ] as const)(
    "14. reads a %s 200 answer with a JSON body as one complete response",
    async (protocol, document) => {
      fake().queue(raw(JSON.stringify(document), { contentType: "application/json" }));
      const { events, error } = await collect(clientOf(profile(protocol, "test-model")), ask());
      expect(error).toBeUndefined();
      assertWellFormed(events);
      expect(textOf(events)).toBe("Whole answer.");
      expect(toolCallsOf(events).map((call) => [call.name, call.args])).toEqual([["lookup", '{"a":1}']]);
      expect(events.at(-1)).toMatchObject({ type: "status", status: "completed", stop_reason: "tool_use" });
    },
  );
});
