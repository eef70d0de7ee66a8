import { describe, expect, it } from "vitest";
import {
  statusEvent,
  textBlockStart,
  textBlockStop,
  textDelta,
  thinkingBlockStart,
  thinkingBlockStop,
  thinkingDelta,
  toolInputDelta,
  toolUseStart,
  toolUseStop,
  usageEvent,
} from "../../src/model/events.js";
import { assistantMessage, toolCall, toolResult, userMessage } from "../../src/model/items.js";
import { type CommitKind, Worker } from "../../src/worker/index.js";
import { MockLlmClient } from "../support/mock-llm-client.js";
import { recordingTool, textResponse, toolCallResponse, weatherRoundTrip, weatherTool } from "./scripts.js";

describe("the turn loop", () => {
  it("answers a simple input with one assistant message", async () => {
    const worker = new Worker(new MockLlmClient(textResponse("Hello!")));
    const locked = worker.lock();
    await expect(locked.run("Hi")).resolves.toBe("finished");
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("Hello!")]);
    expect(locked.lastRunInterrupted).toBe(false);
  });

  it("counts turns cumulatively over runs", async () => {
    const client = MockLlmClient.withResponses([textResponse("one"), textResponse("two")]);
    const locked = new Worker(client).lock();
    await locked.run("first");
    expect(locked.requestCount).toBe(1);
    await locked.run("second");
    expect(locked.requestCount).toBe(2);
    expect(locked.history).toHaveLength(4);
  });

  it("counts a tool round trip as two turns and commits call, result and answer", async () => {
    const worker = new Worker(MockLlmClient.withResponses(weatherRoundTrip()));
    worker.registerTool(weatherTool());
    const locked = worker.lock();
    await expect(locked.run("What's the weather?")).resolves.toBe("finished");
    expect(locked.requestCount).toBe(2);
    expect(locked.history).toEqual([
      userMessage("What's the weather?"),
      toolCall("call_1", "get_weather", '{"city":"Tokyo"}'),
      toolResult("call_1", "Sunny, 25C"),
      assistantMessage("It's sunny in Tokyo!"),
    ]);
  });

  it("sends the system prompt, the config, the tools sorted by name and the history", async () => {
    const client = MockLlmClient.withResponses([
      toolCallResponse({ id: "c1", name: "mid", args: "{}" }),
      textResponse("done"),
    ]);
    const worker = new Worker(client);
    worker.setSystemPrompt("You are helpful.");
    worker.setRequestConfig({ max_tokens: 100, temperature: 0.2 });
    for (const name of ["zeta", "alpha", "mid"]) worker.registerTool(recordingTool(name).definition);
    await worker.lock().run("go");

    expect(client.calls).toBe(2);
    for (const request of client.requests) {
      expect(request.system_prompt).toBe("You are helpful.");
      expect(request.config).toEqual({ max_tokens: 100, temperature: 0.2 });
      expect(request.tools.map((tool) => tool.name)).toEqual(["alpha", "mid", "zeta"]);
    }
    expect(client.requests[0]?.items).toEqual([userMessage("go")]);
    expect(client.requests[1]?.items).toEqual([
      userMessage("go"),
      toolCall("c1", "mid", "{}"),
      toolResult("c1", "ok"),
    ]);
  });

  it("omits the system prompt from requests when none is set", async () => {
    const client = new MockLlmClient(textResponse("Hello!"));
    await new Worker(client).lock().run("Hi");
    expect(client.requests[0]).not.toHaveProperty("system_prompt");
  });

  it("stops with limit_reached after a tool batch once the request count reaches maxRequests", async () => {
    const client = MockLlmClient.withResponses(weatherRoundTrip());
    const worker = new Worker(client);
    worker.registerTool(weatherTool());
    worker.setMaxRequests(1);
    const locked = worker.lock();
    await expect(locked.run("Weather?")).resolves.toBe("limit_reached");
    expect(client.calls).toBe(1);
    expect(locked.history.map((item) => item.type)).toEqual(["message", "tool_call", "tool_result"]);
    expect(locked.lastRunInterrupted).toBe(false);
  });

  it("never reports limit_reached for a reply without tool calls", async () => {
    const worker = new Worker(new MockLlmClient(textResponse("Hello!")));
    worker.setMaxRequests(1);
    await expect(worker.lock().run("Hi")).resolves.toBe("finished");
  });

  it("joins the text blocks of one response into one assistant message", async () => {
    const client = new MockLlmClient([
      textBlockStart(0),
      textDelta(0, "Hello, "),
      textBlockStop(0),
      textBlockStart(1),
      textDelta(1, "world"),
      textBlockStop(1),
    ]);
    const locked = new Worker(client).lock();
    await locked.run("Hi");
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("Hello, world")]);
  });

  it("commits nothing for an empty response and still finishes", async () => {
    const locked = new Worker(new MockLlmClient([statusEvent("completed")])).lock();
    await expect(locked.run("Hi")).resolves.toBe("finished");
    expect(locked.history).toEqual([userMessage("Hi")]);
    expect(locked.requestCount).toBe(1);
  });

  it("commits reasoning first, then text, then tool calls, keeping signatures and encrypted content", async () => {
    const client = MockLlmClient.withResponses([
      [
        textBlockStart(0),
        textDelta(0, "Let me check."),
        textBlockStop(0),
        thinkingBlockStart(1),
        thinkingDelta(1, "The user wants weather."),
        thinkingBlockStop(1, { signature: "sig-anthropic" }),
        toolUseStart(2, "call_1", "get_weather"),
        toolInputDelta(2, '{"city":"Tokyo"}'),
        toolUseStop(2),
        thinkingBlockStart(3),
        thinkingBlockStop(3, {
          id: "rs_1",
          encrypted_content: "gAAAA-opaque",
          summary: ["Checked the forecast"],
        }),
        thinkingBlockStart(4),
        thinkingBlockStop(4, { redacted: true, encrypted_content: "redacted-bytes" }),
      ],
      textResponse("Sunny."),
    ]);
    const worker = new Worker(client);
    worker.registerTool(weatherTool());
    const locked = worker.lock();
    await locked.run("Weather?");

    expect(locked.history.slice(1, 6)).toEqual([
      { type: "reasoning", text: "The user wants weather.", signature: "sig-anthropic" },
      {
        type: "reasoning",
        text: "",
        id: "rs_1",
        encrypted_content: "gAAAA-opaque",
        summary: ["Checked the forecast"],
      },
      { type: "reasoning", text: "", redacted: true, encrypted_content: "redacted-bytes" },
      assistantMessage("Let me check."),
      toolCall("call_1", "get_weather", '{"city":"Tokyo"}'),
    ]);
    // The reasoning goes back to the model with the next request.
    expect(client.requests[1]?.items.slice(1, 4).map((item) => item.type)).toEqual([
      "reasoning",
      "reasoning",
      "reasoning",
    ]);
  });

  it("prefers the reasoning text of a thinking stop over the streamed deltas", async () => {
    const locked = new Worker(
      new MockLlmClient([
        thinkingBlockStart(0),
        thinkingDelta(0, "partial"),
        thinkingBlockStop(0, { text: "full thought", signature: "s" }),
        ...textResponse("ok"),
      ]),
    ).lock();
    await locked.run("Hi");
    expect(locked.history[1]).toEqual({ type: "reasoning", text: "full thought", signature: "s" });
  });

  it("keeps the tool call's provider item id and thought signature", async () => {
    const client = MockLlmClient.withResponses([
      [
        {
          type: "block_start",
          index: 0,
          block: { type: "tool_use", id: "call_9", name: "lookup", item_id: "fc_9", signature: "gemini-sig" },
        },
        toolInputDelta(0, "{}"),
        toolUseStop(0),
      ],
      textResponse("done"),
    ]);
    const worker = new Worker(client);
    worker.registerTool(recordingTool("lookup").definition);
    const locked = worker.lock();
    await locked.run("go");
    expect(locked.history[1]).toEqual({
      type: "tool_call",
      call_id: "call_9",
      name: "lookup",
      arguments: "{}",
      id: "fc_9",
      signature: "gemini-sig",
    });
  });

  it("tells the observer about events, commits, tool calls and turns", async () => {
    const client = MockLlmClient.withResponses([
      [usageEvent(10, 2), ...toolCallResponse({ id: "c1", name: "get_weather", args: '{"city":"Tokyo"}' })],
      [...textResponse("Sunny."), usageEvent(20, 3)],
    ]);
    const log: string[] = [];
    const commits: Array<[CommitKind, number]> = [];
    const worker = new Worker(client, {
      observer: {
        onEvent: (event) => log.push(`event:${event.type}`),
        onItemsCommitted: (items, kind) => {
          commits.push([kind, items.length]);
        },
        onToolCallStart: (call) => log.push(`tool-start:${call.call_id}`),
        onToolCallEnd: (call, result) => log.push(`tool-end:${call.call_id}:${result.output}`),
        onRequestStart: (request) => log.push(`request-start:${request}`),
        onRequestEnd: (request, usage) =>
          log.push(`request-end:${request}:${usage.input_tokens}/${usage.output_tokens}`),
      },
    });
    worker.registerTool(weatherTool());
    await worker.lock().run("Weather?");

    expect(commits).toEqual([
      ["user_input", 1],
      ["assistant", 1],
      ["tool_results", 1],
      ["assistant", 1],
    ]);
    expect(log.filter((line) => !line.startsWith("event:"))).toEqual([
      "request-start:0",
      "request-end:0:10/2",
      "tool-start:c1",
      "tool-end:c1:Sunny, 25C",
      "request-start:1",
      "request-end:1:20/3",
    ]);
    expect(log.filter((line) => line.startsWith("event:"))).toHaveLength(client.emitted.length);
  });

  it("fails the run when an observer throws, and takes back items a commit observer refused", async () => {
    const throwing = new Worker(new MockLlmClient(textResponse("Hello!")), {
      observer: {
        onEvent: () => {
          throw new Error("publisher down");
        },
      },
    }).lock();
    await expect(throwing.run("Hi")).rejects.toMatchObject({
      kind: "aborted",
      message: "Aborted: observer onEvent failed: publisher down",
    });
    expect(throwing.lastRunInterrupted).toBe(true);

    const refusing = new Worker(new MockLlmClient(textResponse("Hello!")), {
      observer: {
        onItemsCommitted: async (_items, kind) => {
          if (kind === "assistant") throw new Error("disk full");
        },
      },
    }).lock();
    await expect(refusing.run("Hi")).rejects.toMatchObject({ kind: "aborted" });
    expect(refusing.history).toEqual([userMessage("Hi")]);
    expect(refusing.requestCount).toBe(0);
  });

  it("waits for an asynchronous commit observer before running the tools", async () => {
    const order: string[] = [];
    const client = MockLlmClient.withResponses(weatherRoundTrip());
    const worker = new Worker(client, {
      observer: {
        onItemsCommitted: async (_items, kind) => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push(`committed:${kind}`);
        },
        onToolCallStart: () => order.push("tool-start"),
      },
    });
    worker.registerTool(weatherTool());
    await worker.lock().run("Weather?");
    expect(order.slice(0, 3)).toEqual(["committed:user_input", "committed:assistant", "tool-start"]);
  });
});
