/**
 * A vendor 4xx that names one element of the history (OpenAI's `param` "messages.[3].content"
 * or "input[5]", a validator's `loc`, Anthropic's "messages.3.content.0: …") is answered by
 * sending the request once more without the history items that element was built from, as a
 * `retry` event that says what was left out; a second refusal fails the request with the
 * vendor's message. The servers here refuse whatever holds one word (a content filter), and
 * name where they found it the way each vendor does.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Item } from "../../src/model/items.js";
import { toolCall, toolResult, userMessage } from "../../src/model/items.js";
import { anthropicMessages } from "../../src/providers/anthropic/request.js";
import { capabilitiesFor } from "../../src/providers/capability-table.js";
import { chatMessages } from "../../src/providers/chat-completions/request.js";
import type { HistorySources } from "../../src/providers/history-refusal.js";
import { createLlmClient, type ProviderProfile } from "../../src/providers/index.js";
import { refusedPaths } from "../../src/providers/refused-fields.js";
import { responsesInput } from "../../src/providers/responses/request.js";
import { httpError, text } from "../support/fake-provider/index.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { historyArbitrary } from "./history-arbitrary.js";
import { collect, textOf } from "./stream-helpers.js";

const fake = withFakeProvider({ script: () => text("unexpected extra request") });

function client(protocol: ProviderProfile["protocol"], model = "test-model") {
  return createLlmClient(
    { protocol, model, baseUrl: fake().baseUrl, apiKey: "k" },
    { retry: { maxAttempts: 1 } },
  );
}

/** The index of the first element of `array` in the request body whose JSON holds `word`. */
function elementWith(request: RecordedRequest, array: string, word: string): number {
  const elements = (request.body as Record<string, unknown[]>)[array] ?? [];
  return elements.findIndex((element) => JSON.stringify(element).includes(word));
}

/** A server refusing any request with `word`, naming the element in OpenAI's `param`. */
function openAiFilter(array: "messages" | "input", word: string, style: (index: number) => string) {
  return (request: RecordedRequest) => {
    const index = elementWith(request, array, word);
    if (index < 0) return text("fine");
    return httpError(400, {
      body: JSON.stringify({
        error: { message: "Your request was flagged.", type: "invalid_request_error", param: style(index) },
      }),
    });
  };
}

const history: Item[] = [
  userMessage("first question"),
  { type: "message", role: "assistant", content: [{ type: "text", text: "first answer" }] },
  userMessage("POISON here"),
  { type: "message", role: "assistant", content: [{ type: "text", text: "second answer" }] },
  userMessage("go on"),
];

describe("a refusal naming a history element", () => {
  it("Chat Completions (param messages.[N].content): sends once more without that message", async () => {
    fake().script = openAiFilter("messages", "POISON", (index) => `messages.[${index}].content`);
    const { events, error } = await collect(client("chat_completions"), {
      system_prompt: "Be brief.",
      items: history,
      tools: [],
      config: {},
    });
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("fine");
    const retry = events.find((event) => event.type === "retry");
    expect(retry).toMatchObject({
      retry: { delay_ms: 0, adjusted: ['messages[3]: the user message "POISON here"'] },
    });
    expect(fake().requests).toHaveLength(2);
    expect(fake().lastRequest.rawBody).not.toContain("POISON");
    expect(fake().lastRequest.rawBody).toContain("go on");
  });

  it("Chat Completions behind a validator (loc [body, messages, N, content]): the same", async () => {
    fake().script = (request) => {
      const index = elementWith(request, "messages", "POISON");
      if (index < 0) return text("fine");
      return httpError(422, {
        body: JSON.stringify({
          detail: [{ type: "value_error", loc: ["body", "messages", index, "content"], msg: "flagged" }],
        }),
      });
    };
    const { events, error } = await collect(client("chat_completions"), {
      items: history,
      tools: [],
      config: {},
    });
    expect(error).toBeUndefined();
    expect(events.some((event) => event.type === "retry")).toBe(true);
    expect(fake().lastRequest.rawBody).not.toContain("POISON");
  });

  it("Responses (param input[N]): sends once more without that input item", async () => {
    fake().script = openAiFilter("input", "POISON", (index) => `input[${index}]`);
    const { error } = await collect(client("responses"), { items: history, tools: [], config: {} });
    expect(error).toBeUndefined();
    expect(fake().requests).toHaveLength(2);
    expect(fake().lastRequest.rawBody).not.toContain("POISON");
  });

  it("Anthropic (messages.N.content.M: …): leaves out only the block's item, and pairs the call again", async () => {
    fake().script = (request) => {
      const messages = (request.body as { messages: { content: Record<string, unknown>[] }[] }).messages;
      for (const [index, message] of messages.entries()) {
        const block = message.content.findIndex((part) => JSON.stringify(part).includes("POISON"));
        if (block >= 0) {
          return httpError(400, {
            body: JSON.stringify({
              type: "error",
              error: {
                type: "invalid_request_error",
                message: `messages.${index}.content.${block}: flagged content`,
              },
            }),
          });
        }
      }
      return text("fine");
    };
    const items: Item[] = [
      userMessage("read it"),
      toolCall("call_1", "lookup", "{}"),
      toolResult("call_1", "POISON in the file"),
      userMessage("and then?"),
    ];
    const { events, error } = await collect(client("anthropic"), { items, tools: [], config: {} });
    expect(error).toBeUndefined();
    expect(events.find((event) => event.type === "retry")).toMatchObject({
      retry: { adjusted: ["messages[2].content[0]: the result of call call_1"] },
    });
    const resent = fake().lastRequest.rawBody;
    expect(resent).not.toContain("POISON");
    // The user's text of the same message stays; the call gets the projection's stand-in result.
    expect(resent).toContain("and then?");
    expect(resent).toContain("No result was recorded for this tool call.");
  });

  it("fails with the vendor's message when the request is refused again (one adjusted resend)", async () => {
    fake().script = openAiFilter("messages", "POISON", (index) => `messages.[${index}].content`);
    const items = [...history, userMessage("POISON again")];
    const { events, error } = await collect(client("chat_completions"), { items, tools: [], config: {} });
    expect(error?.status).toBe(400);
    expect(error?.message).toContain("Your request was flagged.");
    expect(events.filter((event) => event.type === "retry")).toHaveLength(1);
    expect(fake().requests).toHaveLength(2);
  });

  it("never leaves out the message the model is asked to answer: the request fails", async () => {
    fake().script = openAiFilter("messages", "POISON", (index) => `messages.[${index}].content`);
    const { events, error } = await collect(client("chat_completions"), {
      items: [history[0]!, history[1]!, userMessage("POISON now")],
      tools: [],
      config: {},
    });
    expect(error?.message).toContain("Your request was flagged.");
    expect(events.some((event) => event.type === "retry")).toBe(false);
    expect(fake().requests).toHaveLength(1);
  });

  it("changes nothing when the element is none of the history's (the system prompt) or none is named", async () => {
    fake().script = () =>
      httpError(400, {
        body: JSON.stringify({
          error: { message: "bad system", type: "invalid_request_error", param: "messages.[0].content" },
        }),
      });
    const named = await collect(client("chat_completions"), {
      system_prompt: "Be brief.",
      items: history,
      tools: [],
      config: {},
    });
    expect(named.error?.message).toContain("bad system");
    expect(fake().requests).toHaveLength(1);
    fake().script = () =>
      httpError(400, {
        body: JSON.stringify({
          error: { message: "messages.1: prohibited", type: "invalid_request_error", param: "messages" },
        }),
      });
    const unnamed = await collect(client("chat_completions"), { items: history, tools: [], config: {} });
    expect(unnamed.error?.message).toContain("prohibited");
    expect(fake().requests).toHaveLength(2);
  });
});

describe("the builders' history sources", () => {
  const origin = { provider: "openai-chat", model: "m" };
  const histories = historyArbitrary(origin);

  it("trace every element of the history array to request items, in order (1,000 histories per protocol)", () => {
    fc.assert(
      fc.property(histories, fc.boolean(), ({ items }, store) => {
        const chatSources: HistorySources = [];
        const messages = chatMessages(
          "system",
          items,
          { capabilities: capabilitiesFor("chat_completions", "deepseek-chat"), origin },
          chatSources,
        );
        expect(chatSources).toHaveLength(messages.length);
        expect(chatSources[0]).toEqual([]);
        const anthropicSources: HistorySources = [];
        const anthropic = anthropicMessages(items, { provider: "anthropic", model: "m" }, anthropicSources);
        expect(anthropicSources.map((blocks) => blocks.length)).toEqual(
          anthropic.map((message) => message.content.length),
        );
        const responsesSources: HistorySources = [];
        const input = responsesInput(
          items,
          { store, origin: { provider: "openai-responses", model: "m" } },
          responsesSources,
        );
        expect(responsesSources).toHaveLength(input.length);
        for (const sources of [chatSources, anthropicSources, responsesSources]) {
          for (const position of sources.flat()) {
            if (position !== undefined) expect(items[position]).toBeDefined();
          }
        }
        // Each element goes out from items of its own kind (call ids may be renamed when reused).
        const kindOf = (position: number | undefined) =>
          position === undefined ? undefined : items[position]?.type;
        messages.forEach((message, index) => {
          const kinds = chatSources[index]!.map(kindOf).filter((kind) => kind !== undefined);
          // A stand-in result (for a call that lost its own) comes from no item.
          if (message.role === "tool")
            expect(kinds).toEqual(chatSources[index]![0] === undefined ? [] : ["tool_result"]);
          if (message.role === "user") expect(kinds).toEqual(["message"]);
        });
        input.forEach((element, index) => {
          const kind = kindOf(responsesSources[index]![0]);
          if (element.type === "function_call") expect(kind).toBe("tool_call");
          if (element.type === "function_call_output" && kind !== undefined) expect(kind).toBe("tool_result");
          if (element.type === "reasoning") expect(kind).toBe("reasoning");
        });
        for (const [index, blocks] of anthropicSources.entries()) {
          for (const [block, position] of blocks.entries()) {
            const item = position === undefined ? undefined : items[position];
            if (item?.type === "tool_call")
              expect(anthropic[index]!.content[block]).toMatchObject({ type: "tool_use", name: item.name });
          }
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe("refusedPaths", () => {
  const name = fc.constantFrom("messages", "input", "contents", "tools");
  const field = fc.constantFrom("content", "role", "tool_calls", "text");
  const path = fc.tuple(name, fc.nat(500), field, fc.nat(20));

  it("reads the path a vendor names, in each vendor's spelling", () => {
    fc.assert(
      fc.property(path, ([array, index, key, block]) => {
        const expected = [array, index, key, block];
        const openAi = JSON.stringify({
          error: { message: "x", param: `${array}.[${index}].${key}[${block}]` },
        });
        const bracketed = JSON.stringify({
          error: { message: "x", param: `${array}[${index}].${key}.${block}` },
        });
        const pydantic = JSON.stringify({ detail: [{ loc: ["body", array, index, key, block], msg: "x" }] });
        const anthropic = JSON.stringify({
          type: "error",
          error: { message: `${array}.${index}.${key}.${block}: bad` },
        });
        expect(refusedPaths(openAi)).toEqual([{ segments: expected, from: "param" }]);
        expect(refusedPaths(bracketed)).toEqual([{ segments: expected, from: "param" }]);
        expect(refusedPaths(pydantic)).toEqual([{ segments: expected, from: "loc" }]);
        expect(refusedPaths(anthropic)).toEqual([{ segments: expected, from: "message" }]);
      }),
    );
  });

  it("finds no path in a body that names none, whatever its text", () => {
    fc.assert(
      fc.property(fc.string(), (message) => {
        const plain = JSON.stringify({ error: { message: `Error: ${message}`, param: null } });
        expect(refusedPaths(plain)).toEqual([]);
        expect(refusedPaths(`not json: ${message}`)).toEqual([]);
      }),
    );
  });
});
