import { describe, expect, it } from "vitest";
import { assistantMessage, toolCall, toolResult, userMessage } from "../../src/model/items.js";
import { NOT_RUN_OUTPUT, Worker } from "../../src/worker/index.js";
import { MockLlmClient } from "../support/mock-llm-client.js";
import { recordingTool, textResponse, toolCallResponse, weatherRoundTrip, weatherTool } from "./scripts.js";

describe("pause and resume", () => {
  it("pauses at turn end and resumes with another request", async () => {
    let pauses = 1;
    const client = MockLlmClient.withResponses([textResponse("Hello!"), textResponse("Still here.")]);
    const worker = new Worker(client, {
      interceptor: { onRunEnd: () => (pauses-- > 0 ? { action: "pause" } : { action: "finish" }) },
    });
    const locked = worker.lock();
    await expect(locked.run("Hi")).resolves.toBe("paused");
    expect(locked.lastRunInterrupted).toBe(true);
    await expect(locked.resume()).resolves.toBe("finished");
    expect(locked.history).toEqual([
      userMessage("Hi"),
      assistantMessage("Hello!"),
      assistantMessage("Still here."),
    ]);
    expect(locked.lastRunInterrupted).toBe(false);
  });

  it("answers calls a paused run left pending before a new input, so the next request is valid", async () => {
    const lookup = recordingTool("lookup");
    const client = MockLlmClient.withResponses([
      toolCallResponse({ id: "c1", name: "lookup", args: "{}" }),
      textResponse("Okay, something else then."),
    ]);
    let paused = false;
    const worker = new Worker(client, {
      interceptor: {
        beforeToolCall: () => {
          if (paused) return { action: "continue" };
          paused = true;
          return { action: "pause" };
        },
      },
    });
    worker.registerTool(lookup.definition);
    const locked = worker.lock();
    await expect(locked.run("Look it up")).resolves.toBe("paused");

    await expect(locked.run("Never mind")).resolves.toBe("finished");
    const expectedPrefix = [
      userMessage("Look it up"),
      toolCall("c1", "lookup", "{}"),
      toolResult("c1", NOT_RUN_OUTPUT, true),
      userMessage("Never mind"),
    ];
    expect(client.requests[1]?.items).toEqual(expectedPrefix);
    expect(locked.history).toEqual([...expectedPrefix, assistantMessage("Okay, something else then.")]);
    expect(lookup.inputs).toEqual([]);
  });

  it("resumes a restored session whose history ends with pending tool calls", async () => {
    const client = new MockLlmClient(textResponse("It's sunny."));
    const worker = new Worker(client);
    worker.registerTool(weatherTool());
    worker.setHistory([userMessage("Weather?"), toolCall("call_1", "get_weather", '{"city":"Tokyo"}')]);
    worker.setLastRunInterrupted(true);
    worker.setRequestCount(1);
    const locked = worker.lock();
    await expect(locked.resume()).resolves.toBe("finished");
    expect(locked.history.slice(2)).toEqual([
      toolResult("call_1", "Sunny, 25C"),
      assistantMessage("It's sunny."),
    ]);
    expect(locked.requestCount).toBe(2);
  });

  it("reports a paused run as interrupted after unlocking, as the seed's pause policy expects", async () => {
    const worker = new Worker(MockLlmClient.withResponses(weatherRoundTrip()), {
      interceptor: { onRunEnd: () => ({ action: "pause" }) },
    });
    worker.registerTool(weatherTool());
    const locked = worker.lock();
    await expect(locked.run("Weather?")).resolves.toBe("paused");
    expect(locked.history).toHaveLength(4);
    expect(locked.unlock().lastRunInterrupted).toBe(true);
  });
});
