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

describe("timing thinking with a clock", () => {
  /** Feed `steps` (events, or numbers that move the clock to that time) to a collector with a clock. */
  function timed(steps: (Parameters<ResponseCollector["accept"]>[0] | number)[]) {
    let now = 0;
    const collector = new ResponseCollector(() => now);
    for (const step of steps) {
      if (typeof step === "number") now = step;
      else collector.accept(step);
    }
    return collector.finish();
  }

  it("measures from the first thinking delta to the block's stop", () => {
    const response = timed([
      { type: "block_start", index: 0, block: { type: "thinking" } },
      100,
      thinkingDelta(0, "let me "),
      250,
      thinkingDelta(0, "think"),
      1340,
      { type: "block_stop", index: 0, block_type: "thinking", reasoning: { signature: "sig" } },
      2000,
      textDelta(1, "answer"),
    ]);
    expect(response.reasoning).toEqual([
      { type: "reasoning", text: "let me think", signature: "sig", duration_ms: 1240 },
    ]);
  });

  it("ends a thinking block that is never closed when another block starts or streams", () => {
    const response = timed([
      10,
      thinkingDelta(0, "first"),
      40.4,
      textDelta(1, "then text"),
      900,
      thinkingDelta(2, "second"),
      950,
      toolUseStart(3, "c1", "read_file"),
      5000,
      statusEvent("completed"),
    ]);
    expect(response.reasoning.map((item) => item.duration_ms)).toEqual([30, 50]);
  });

  it("ends thinking still streaming when the response ends", () => {
    const response = timed([5, thinkingDelta(0, "only thought"), 75, statusEvent("completed")]);
    expect(response.reasoning[0]?.duration_ms).toBe(70);
  });

  it("gives no duration to reasoning that streamed nothing, nor to any without a clock", () => {
    const lone = timed([
      { type: "block_stop", index: 5, block_type: "thinking", reasoning: { encrypted_content: "enc" } },
    ]);
    expect(lone.reasoning).toEqual([{ type: "reasoning", text: "", encrypted_content: "enc" }]);
    expect(collect([thinkingDelta(0, "untimed"), textDelta(1, "x")]).reasoning).toEqual([
      { type: "reasoning", text: "untimed" },
    ]);
  });

  it("reaches the history through the Worker's clock option", async () => {
    let now = 0;
    const client = new MockLlmClient([
      thinkingDelta(0, "hmm"),
      textDelta(1, "answer"),
      statusEvent("completed"),
    ]);
    const worker = new Worker(client, { clock: () => (now += 25) });
    await worker.lock().run("Question?");
    expect(worker.history.find((item) => item.type === "reasoning")).toEqual({
      type: "reasoning",
      text: "hmm",
      duration_ms: 25,
    });
  });
});
