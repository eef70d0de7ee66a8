/**
 * The setups that failed on the first or second turn against the real vendors, reproduced with
 * the vendors' own stream shapes and 400s in the fake provider and run through the real client
 * and, where a second turn matters, the real Worker.
 */
import { describe, expect, it } from "vitest";
import type { Item } from "../../src/model/items.js";
import { reasoning as reasoningItem, toolCall, toolResult, userMessage } from "../../src/model/items.js";
import type { RequestConfig } from "../../src/model/request-config.js";
import type { ToolDefinition } from "../../src/model/tools.js";
import { createLlmClient, type ProviderProfile } from "../../src/providers/index.js";
import { Worker } from "../../src/worker/index.js";
import { reasoning, stream, text, textPart, toolCalls } from "../support/fake-provider/index.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { ask, assertWellFormed, collect, textOf, thinkingOf, toolCallsOf } from "./stream-helpers.js";

const fake = withFakeProvider({ script: () => text("unexpected extra request") });

const lookupTool: ToolDefinition = () => ({
  meta: { name: "lookup", description: "Look a word up", input_schema: { type: "object" } },
  tool: { execute: async (input) => `looked up ${input}` },
});

function profile(protocol: ProviderProfile["protocol"], model: string, extra: Partial<ProviderProfile> = {}) {
  return { protocol, model, baseUrl: fake().baseUrl, apiKey: "k", ...extra } as ProviderProfile;
}

/** Runs one user turn through a Worker (tools: lookup) and returns the history. */
async function runTurn(
  client: ReturnType<typeof createLlmClient>,
  input: string,
  history: readonly Item[] = [],
  config: RequestConfig = {},
): Promise<readonly Item[]> {
  const worker = new Worker(client);
  worker.registerTool(lookupTool);
  worker.setHistory(history);
  worker.setRequestConfig(config);
  const locked = worker.lock();
  const result = await locked.run(input);
  expect(result).toBe("finished");
  return locked.history;
}

const body = (index: number) => fake().requests[index]!.body as Record<string, unknown>;

describe("breaking setups, fixed", () => {
  it("asks a non-reasoning Responses model for no encrypted reasoning (gpt-4.1 answered 400)", async () => {
    fake().queue(text("fine"));
    const client = createLlmClient(profile("responses", "gpt-4.1"), { retry: { maxAttempts: 1 } });
    const { error, events } = await collect(client, ask());
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("fine");
    expect(body(0).include).toBeUndefined();
  });

  it("recovers once when a server refuses encrypted reasoning the profile asked for, and stops asking", async () => {
    fake().queue(text("first"), text("second"));
    const client = createLlmClient(
      profile("responses", "gpt-4o", { capabilities: { encryptedReasoning: true } }),
      {
        retry: { maxAttempts: 1 },
      },
    );
    const first = await collect(client, ask());
    expect(first.error).toBeUndefined();
    expect(textOf(first.events)).toBe("first");
    expect(fake().requests.map((request) => (request.body as Record<string, unknown>).include)).toEqual([
      ["reasoning.encrypted_content"],
      undefined,
    ]);
    const second = await collect(client, ask());
    expect(textOf(second.events)).toBe("second");
    expect(body(2).include).toBeUndefined();
  });

  it("keeps Ollama's parallel tool calls apart although every one comes at index 0", async () => {
    fake().queue(
      toolCalls(
        [
          { name: "write_file", args: { path: "a.txt" }, id: "call_a" },
          { name: "write_file", args: { path: "b.txt" }, id: "call_b" },
        ],
        { toolCallStyle: "ollama" },
      ),
    );
    const client = createLlmClient({
      protocol: "chat_completions",
      baseUrl: fake().baseUrl,
      model: "qwen3:8b",
    });
    const { events, error } = await collect(client, ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(toolCallsOf(events).map(({ id, args }) => ({ id, args }))).toEqual([
      { id: "call_a", args: '{"path":"a.txt"}' },
      { id: "call_b", args: '{"path":"b.txt"}' },
    ]);
  });

  it("sends DeepSeek its reasoning_content back in a thinking-mode tool loop", async () => {
    fake().queue(
      reasoning("I should look it up.", toolCalls([{ name: "lookup", args: { word: "skein" } }])),
      text("A skein is a length of yarn."),
    );
    const client = createLlmClient({
      protocol: "chat_completions",
      baseUrl: fake().baseUrl,
      model: "deepseek-reasoner",
    });
    await runTurn(client, "What is a skein?");
    const messages = body(1).messages as Record<string, unknown>[];
    const assistant = messages.find((message) => message.role === "assistant");
    expect(assistant?.reasoning_content).toBe("I should look it up.");
  });

  it("gives DeepSeek an empty reasoning_content for a tool call another model made", async () => {
    fake().queue(text("done"));
    const history: Item[] = [
      userMessage("go"),
      toolCall("call_1", "lookup", "{}"),
      toolResult("call_1", "ok"),
    ];
    const client = createLlmClient({
      protocol: "chat_completions",
      baseUrl: fake().baseUrl,
      model: "deepseek-chat",
    });
    const { error } = await collect(client, { items: history, tools: [], config: {} });
    expect(error).toBeUndefined();
    const messages = body(0).messages as Record<string, unknown>[];
    expect(messages[1]).toMatchObject({ role: "assistant", reasoning_content: "" });
  });

  it("keeps an id-only reasoning item with store: true so its function call is accepted", async () => {
    // With store, OpenAI returns reasoning items with an id and an empty summary, nothing else.
    fake().queue(reasoning([], toolCalls([{ name: "lookup", args: { word: "skein" } }])), text("Yarn."));
    const client = createLlmClient(profile("responses", "gpt-5-mini", { store: true }));
    const history = await runTurn(client, "What is a skein?");
    const kept = history.find((item) => item.type === "reasoning");
    expect(kept).toMatchObject({ type: "reasoning", text: "", id: expect.stringMatching(/^rs_/) });
    const input = body(1).input as Record<string, unknown>[];
    expect(input.map((item) => item.type)).toEqual([
      "message",
      "reasoning",
      "function_call",
      "function_call_output",
    ]);
    expect(input[1]).toEqual({ type: "reasoning", id: (kept as { id: string }).id, summary: [] });
  });

  it("reads Mistral's content arrays: thinking parts as thinking, text parts as the answer", async () => {
    fake().queue({
      ...reasoning(["Thinking ", "hard."], text(["The ", "answer."])),
      reasoningField: "mistral",
    });
    const client = createLlmClient(profile("chat_completions", "magistral-medium-2509"));
    const { events, error } = await collect(client, ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(thinkingOf(events)).toBe("Thinking hard.");
    expect(textOf(events)).toBe("The answer.");
  });

  it("sends reasoning payloads only back to the provider and model that produced them", async () => {
    const anthropic = { provider: "anthropic", model: "claude-sonnet-4-5" };
    const history: Item[] = [
      userMessage("go"),
      reasoningItem("Claude's thoughts", { signature: "anthropic-sig", origin: anthropic }),
      { ...toolCall("call_1", "lookup", "{}") },
      toolResult("call_1", "ok"),
    ];
    fake().queue(text("done"), text("done"), text("done"));
    // Gemini 3 must not get Anthropic's signature, and its current-turn call needs a signature.
    await collect(createLlmClient(profile("gemini", "gemini-3-flash-preview")), {
      items: history,
      tools: [],
      config: {},
    });
    expect(fake().requests[0]!.rawBody).not.toContain("anthropic-sig");
    const contents = body(0).contents as { role: string; parts: Record<string, unknown>[] }[];
    expect(contents[1]).toEqual({
      role: "model",
      parts: [
        { functionCall: { name: "lookup", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
      ],
    });
    // Responses and another Claude model drop it too; the same model gets it back.
    await collect(createLlmClient(profile("anthropic", "claude-opus-4-1")), {
      items: history,
      tools: [],
      config: {},
    });
    expect(fake().requests[1]!.rawBody).not.toContain("anthropic-sig");
    await collect(createLlmClient(profile("anthropic", "claude-sonnet-4-5")), {
      items: history,
      tools: [],
      config: {},
    });
    expect(fake().requests[2]!.rawBody).toContain("anthropic-sig");
  });

  it("still sends an untagged reasoning item (a log written before tagging) where its payload fits", async () => {
    fake().queue(text("done"));
    const history: Item[] = [
      userMessage("go"),
      reasoningItem("old thoughts", { signature: "old-sig" }),
      toolCall("call_1", "lookup", "{}"),
      toolResult("call_1", "ok"),
    ];
    await collect(createLlmClient(profile("anthropic", "claude-sonnet-4-5")), {
      items: history,
      tools: [],
      config: {},
    });
    expect(fake().requests[0]!.rawBody).toContain("old-sig");
  });

  it("sends Claude Opus 4.7 adaptive thinking and no temperature (the budget form answered 400)", async () => {
    fake().queue(text("ok"));
    const client = createLlmClient(profile("anthropic", "claude-opus-4-7"), { retry: { maxAttempts: 1 } });
    const { error } = await collect(client, {
      ...ask(),
      config: { reasoning: { effort: "high" }, temperature: 0.2 },
    });
    expect(error).toBeUndefined();
    expect(body(0)).toMatchObject({ thinking: { type: "adaptive" }, output_config: { effort: "high" } });
    expect(body(0).temperature).toBeUndefined();
  });

  it("keeps Claude's max_tokens above the thinking budget and drops sampling while thinking", async () => {
    fake().queue(text("ok"));
    const client = createLlmClient(profile("anthropic", "claude-sonnet-4-5"), { retry: { maxAttempts: 1 } });
    const { error } = await collect(client, {
      ...ask(),
      config: { reasoning: { budget_tokens: 4000 }, max_tokens: 2000, temperature: 0.3, top_k: 5 },
    });
    expect(error).toBeUndefined();
    expect(body(0)).toMatchObject({ max_tokens: 6000, thinking: { type: "enabled", budget_tokens: 4000 } });
    expect(body(0).temperature).toBeUndefined();
    expect(body(0).top_k).toBeUndefined();
  });

  it("gives Gemini 2.5 a thinking budget for an effort (thinkingLevel answered 400)", async () => {
    fake().queue(text("ok"));
    const client = createLlmClient(profile("gemini", "gemini-2.5-flash"), { retry: { maxAttempts: 1 } });
    const { error } = await collect(client, { ...ask(), config: { reasoning: { effort: "medium" } } });
    expect(error).toBeUndefined();
    expect(body(0).generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
    });
  });

  it("clamps minimal and xhigh for Ollama, which knows only low, medium and high", async () => {
    fake().queue(text("ok"), text("ok"));
    const client = createLlmClient({
      protocol: "chat_completions",
      baseUrl: fake().baseUrl,
      model: "qwen3:8b",
    });
    for (const effort of ["minimal", "xhigh"] as const) {
      const { error } = await collect(client, { ...ask(), config: { reasoning: { effort } } });
      expect(error).toBeUndefined();
    }
    expect(
      fake().requests.map((request) => (request.body as Record<string, unknown>).reasoning_effort),
    ).toEqual(["low", "high"]);
  });

  it("sends an OpenAI reasoning model neither temperature nor top_k on Chat Completions", async () => {
    fake().queue(text("ok"));
    const client = createLlmClient(profile("chat_completions", "gpt-5-mini"), { retry: { maxAttempts: 1 } });
    const { error } = await collect(client, {
      ...ask(),
      config: { temperature: 0.5, top_k: 40, top_p: 0.9 },
    });
    expect(error).toBeUndefined();
    expect(Object.keys(body(0))).not.toContain("temperature");
    expect(Object.keys(body(0))).not.toContain("top_k");
  });
});

describe("degraded cases, fixed", () => {
  it("keeps Responses commentary and final answer as separate messages with their phase, and resends it", async () => {
    fake().queue(
      stream([
        textPart("Let me check.", { phase: "commentary" }),
        textPart("It is yarn.", { phase: "final_answer" }),
      ]),
      text("ok"),
    );
    const client = createLlmClient(profile("responses", "gpt-5.3-codex"));
    const history = await runTurn(client, "What is a skein?");
    const messages = history.filter((item) => item.type === "message" && item.role === "assistant");
    expect(
      messages.map((item) => [
        item.type === "message" && item.phase,
        item.type === "message" && item.content,
      ]),
    ).toEqual([
      ["commentary", [{ type: "text", text: "Let me check." }]],
      ["final_answer", [{ type: "text", text: "It is yarn." }]],
    ]);
    fake().queue(text("next"));
    await runTurn(client, "And a hank?", history);
    const input = body(1).input as Record<string, unknown>[];
    expect(input.filter((item) => item.role === "assistant")).toEqual([
      { type: "message", role: "assistant", content: "Let me check.", phase: "commentary" },
      { type: "message", role: "assistant", content: "It is yarn.", phase: "final_answer" },
    ]);
  });

  it("sends Gemini's text signatures back on their own text parts, every one of them", async () => {
    fake().queue(
      stream([
        textPart("First part.", { signature: "sig-1" }),
        textPart(" Second part.", { signature: "sig-2" }),
      ]),
    );
    const client = createLlmClient(profile("gemini", "gemini-3-flash-preview"));
    const history = await runTurn(client, "Tell me two things.");
    fake().queue(text("ok"));
    await runTurn(client, "More?", history);
    const contents = body(1).contents as { role: string; parts: unknown[] }[];
    expect(contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "First part.", thoughtSignature: "sig-1" },
        { text: " Second part.", thoughtSignature: "sig-2" },
      ],
    });
  });

  it.each([
    ["MISSING_THOUGHT_SIGNATURE", { kind: "api", code: "MISSING_THOUGHT_SIGNATURE" }],
    ["MALFORMED_RESPONSE", { kind: "api", code: "MALFORMED_RESPONSE" }],
  ])("reports Gemini's finish reason %s as an error, not a normal end", async (finishReason, expected) => {
    fake().queue(text("partial", { finishReason }));
    const { error } = await collect(createLlmClient(profile("gemini", "gemini-2.5-pro")), ask());
    expect(error).toMatchObject(expected);
  });

  it.each(["IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "NO_IMAGE"])(
    "reports Gemini's finish reason %s as a content filter stop",
    async (finishReason) => {
      fake().queue(text("partial", { finishReason }));
      const { events } = await collect(createLlmClient(profile("gemini", "gemini-2.5-pro")), ask());
      expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "content_filter" });
    },
  );

  it("reads a leading <think>…</think> in Chat content as thinking (llama.cpp, TGI, Groq raw)", async () => {
    fake().queue({
      ...reasoning(["Let me ", "see."], text(["The answer", " is 4."])),
      reasoningField: "think_tags",
    });
    const client = createLlmClient(profile("chat_completions", "qwq-32b"));
    const { events } = await collect(client, ask());
    assertWellFormed(events);
    expect(thinkingOf(events)).toBe("Let me see.");
    expect(textOf(events)).toBe("The answer is 4.");
  });

  it("maps a Responses incomplete_details reason max_tokens (compatible servers) to the output limit", async () => {
    fake().queue(text("cut", { finishReason: "max_tokens" }));
    const { events } = await collect(createLlmClient(profile("responses", "local-model")), ask());
    expect(events.at(-1)).toEqual({ type: "status", status: "completed", stop_reason: "max_tokens" });
  });

  it("counts xAI's reasoning tokens, reported beside completion_tokens, in the output", async () => {
    fake().queue(text("ok", { usage: { input: 10, output: 350, reasoning: 300 }, usageStyle: "xai" }));
    const { events } = await collect(createLlmClient(profile("chat_completions", "grok-3-mini")), ask());
    expect(events.find((event) => event.type === "usage")).toEqual({
      type: "usage",
      usage: { input_tokens: 10, output_tokens: 350, total_tokens: 360, reasoning_tokens: 300 },
    });
  });

  it.each([
    ["anthropic", "claude-sonnet-4-5", "anthropic error overloaded_error"],
    ["responses", "gpt-5-mini", "openai-responses error server_error"],
    ["gemini", "gemini-2.5-flash", "gemini error UNAVAILABLE"],
  ] as const)(
    "%s: a transient in-stream error after content is retried once by the Worker, the partial answer discarded",
    async (protocol, model, reason) => {
      fake().queue(
        { ...text(["Partial ", "answer ", "that ", "breaks"]), fail: { afterEvents: 6 } },
        text("Whole answer."),
      );
      const events: string[] = [];
      const worker = new Worker(createLlmClient(profile(protocol, model)), {
        observer: {
          onEvent: (event) => {
            if (event.type === "retry") events.push(event.retry.reason);
          },
        },
      });
      const locked = worker.lock();
      expect(await locked.run("hi")).toBe("finished");
      expect(events).toHaveLength(1);
      expect(events[0]).toContain(reason);
      expect(locked.history.slice(1)).toEqual([
        {
          type: "message",
          role: "assistant",
          content: [{ type: "text", text: "Whole answer." }],
          ...(protocol === "responses" ? { id: expect.any(String) } : {}),
        },
      ]);
      expect(fake().requests).toHaveLength(2);
    },
  );
});
