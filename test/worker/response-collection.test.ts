import { describe, expect, it } from "vitest";
import {
  blockAbort,
  statusEvent,
  textBlockStart,
  textBlockStop,
  textDelta,
  thinkingDelta,
  toolInputDelta,
  toolUseStart,
  toolUseStop,
} from "../../src/model/events.js";
import { toolCall, toolResult } from "../../src/model/items.js";
import { Worker } from "../../src/worker/index.js";
import { ResponseCollector } from "../../src/worker/response-collector.js";
import { MockLlmClient, type MockStep } from "../support/mock-llm-client.js";
import { textResponse, weatherTool } from "./scripts.js";

function collect(events: Parameters<ResponseCollector["accept"]>[0][]) {
  const collector = new ResponseCollector();
  for (const event of events) collector.accept(event);
  return collector.finish();
}

async function runWeather(firstResponse: MockStep[]) {
  const client = MockLlmClient.withResponses([firstResponse, textResponse("Sunny.")]);
  const worker = new Worker(client);
  worker.registerTool(weatherTool());
  const locked = worker.lock();
  await locked.run("Weather?");
  return { locked, client };
}

const weatherCall = toolCall("call_1", "get_weather", '{"city":"Tokyo"}');

describe("collecting tool calls without an explicit tool stop", () => {
  it("collects and runs a tool call whose block is closed only by the end of the stream", async () => {
    const { locked } = await runWeather([
      toolUseStart(0, "call_1", "get_weather"),
      toolInputDelta(0, '{"city":'),
      toolInputDelta(0, '"Tokyo"}'),
    ]);
    expect(locked.history.slice(1, 3)).toEqual([weatherCall, toolResult("call_1", "Sunny, 25C")]);
  });

  it("collects a tool call closed by a finish reason (OpenAI Chat sends no tool stop)", async () => {
    const { locked } = await runWeather([
      toolUseStart(0, "call_1", "get_weather"),
      toolInputDelta(0, '{"city":"Tokyo"}'),
      statusEvent("completed", "tool_use"),
    ]);
    expect(locked.history[1]).toEqual(weatherCall);
  });

  it("collects a tool call whose stop is typed as text (Gemini and old Anthropic fixtures)", async () => {
    const { locked } = await runWeather([
      toolUseStart(0, "call_1", "get_weather"),
      toolInputDelta(0, '{"city":"Tokyo"}'),
      textBlockStop(0, "end_turn"),
    ]);
    expect(locked.history[1]).toEqual(weatherCall);
  });

  it("uses the tracked block type for a stop without one", async () => {
    const { locked } = await runWeather([
      toolUseStart(0, "call_1", "get_weather"),
      toolInputDelta(0, '{"city":"Tokyo"}'),
      { type: "block_stop", index: 0 },
    ]);
    expect(locked.history[1]).toEqual(weatherCall);
  });
});

describe("the response collector", () => {
  it("opens a text block implicitly for a delta without a start", () => {
    expect(collect([textDelta(0, "Hel"), textDelta(0, "lo"), statusEvent("completed")]).text).toBe("Hello");
  });

  it("keeps blocks in the order they were opened", () => {
    const response = collect([
      toolUseStart(2, "b", "second"),
      toolUseStart(1, "a", "first"),
      toolInputDelta(1, '{"x":1}'),
      toolUseStop(1),
      toolUseStop(2),
    ]);
    expect(response.toolCalls.map((call) => call.call_id)).toEqual(["b", "a"]);
    expect(response.toolCalls[0]?.arguments).toBe("{}");
  });

  it("closes an open block when a delta of another type arrives at its index", () => {
    const response = collect([
      textBlockStart(0),
      textDelta(0, "visible"),
      thinkingDelta(0, "hidden thought"),
    ]);
    expect(response.text).toBe("visible");
    expect(response.reasoning).toEqual([{ type: "reasoning", text: "hidden thought" }]);
  });

  it("drops an aborted block and tool input that never had a start", () => {
    const response = collect([
      textBlockStart(0),
      textDelta(0, "discard me"),
      blockAbort(0, "Cancelled"),
      toolInputDelta(3, '{"orphan":true}'),
      textDelta(1, "kept"),
    ]);
    expect(response.text).toBe("kept");
    expect(response.toolCalls).toEqual([]);
  });

  it("drops an empty thinking block and collects a lone reasoning stop", () => {
    const response = collect([
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "block_stop", index: 0 },
      { type: "block_stop", index: 5, block_type: "thinking", reasoning: { encrypted_content: "enc" } },
    ]);
    expect(response.reasoning).toEqual([{ type: "reasoning", text: "", encrypted_content: "enc" }]);
  });
});
