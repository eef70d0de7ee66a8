import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blockAbort,
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
  type Step = Parameters<ResponseCollector["accept"]>[0] | number;

  /** Feed `steps` (events, or numbers that move the clock to that time) to a collector with a clock. */
  function timed(steps: Step[]) {
    let now = 0;
    const collector = new ResponseCollector(() => now);
    for (const step of steps) {
      if (typeof step === "number") now = step;
      else collector.accept(step);
    }
    return collector.finish();
  }

  const started = statusEvent("started");
  const thinkingStart = (index: number) => thinkingBlockStart(index);

  it("times thinking from the response's first event, not from its first delta (a summary streamed once thinking is done)", () => {
    const response = timed([
      started,
      3000,
      { type: "ping" },
      4000,
      thinkingStart(0),
      4100,
      thinkingDelta(0, "summary of "),
      4400,
      thinkingDelta(0, "the thinking"),
      4500,
      thinkingBlockStop(0, { signature: "sig" }),
      5000,
      textDelta(1, "answer"),
    ]);
    expect(response.reasoning).toEqual([
      { type: "reasoning", text: "summary of the thinking", signature: "sig", duration_ms: 4500 },
    ]);
  });

  it("counts a usage event or a ping as the response's start, and starts again after a retry notice", () => {
    const fromUsage = timed([
      { type: "usage", usage: { input_tokens: 5 } },
      700,
      thinkingDelta(0, "t"),
      1000,
    ]);
    expect(fromUsage.reasoning[0]?.duration_ms).toBe(1000);
    const retried = timed([
      started,
      100,
      { type: "retry", retry: { attempt: 1, max_attempts: 3, delay_ms: 500, reason: "overloaded" } },
      2000,
      { type: "ping" },
      2600,
      thinkingDelta(0, "t"),
      3000,
      textDelta(1, "x"),
    ]);
    expect(retried.reasoning[0]?.duration_ms).toBe(1000);
  });

  it("starts a later thinking block where the response's previous output ended", () => {
    const response = timed([
      started,
      10,
      thinkingDelta(0, "first"),
      40.4,
      textDelta(1, "then text"),
      600,
      textBlockStop(1),
      900,
      thinkingDelta(2, "second"),
      950,
      toolUseStart(3, "c1", "read_file"),
      1200,
      thinkingStart(4),
      1300,
      thinkingDelta(4, "third"),
      1500,
      thinkingBlockStop(4),
      1800,
      thinkingStart(5),
      1900,
      thinkingDelta(5, "fourth, right after the third"),
      5000,
      statusEvent("completed"),
    ]);
    // 0 → 40.4 (text starts), 600 (text stop) → 950 (tool starts), 950 (the tool's start, its last
    // output) → 1500 (stop), 1500 (the third's stop) → 5000 (the response's end).
    expect(response.reasoning.map((item) => item.duration_ms)).toEqual([40, 350, 550, 3500]);
  });

  it("ends thinking still streaming when the response ends", () => {
    const response = timed([5, thinkingDelta(0, "only thought"), 75, statusEvent("completed")]);
    expect(response.reasoning[0]?.duration_ms).toBe(70);
  });

  it("times a reasoning item given whole as a lone stop from where the output before it ended", () => {
    const lone = timed([
      started,
      2500,
      { type: "block_stop", index: 5, block_type: "thinking", reasoning: { encrypted_content: "enc" } },
      2600,
      textDelta(6, "answer"),
    ]);
    expect(lone.reasoning).toEqual([
      { type: "reasoning", text: "", encrypted_content: "enc", duration_ms: 2500 },
    ]);
  });

  it("gives no duration without a clock", () => {
    expect(collect([thinkingDelta(0, "untimed"), textDelta(1, "x")]).reasoning).toEqual([
      { type: "reasoning", text: "untimed" },
    ]);
  });

  it("never times more thinking than the response lasted, nor a negative duration, whatever the events", () => {
    const index = fc.integer({ min: 0, max: 3 });
    const event: fc.Arbitrary<Step> = fc.oneof(
      fc.double({ min: 0, max: 1000, noNaN: true }),
      index.map((at) => thinkingStart(at)),
      index.map((at) => thinkingDelta(at, "t")),
      index.map((at) => thinkingBlockStop(at, { signature: "s" })),
      index.map((at) => textDelta(at, "x")),
      index.map((at) => textBlockStop(at)),
      index.map((at) => toolUseStart(at, `c${at}`, "tool")),
      index.map((at) => blockAbort(at, "gone")),
      fc.constant<Step>({ type: "ping" }),
      fc.constant<Step>({ type: "block_stop", index: 9, block_type: "thinking", reasoning: { id: "r" } }),
      fc.constant<Step>(statusEvent("completed")),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (steps) => {
        // The clock only moves forward: each number is added to the time.
        let now = 0;
        let first: number | null = null;
        const collector = new ResponseCollector(() => now);
        for (const step of steps) {
          if (typeof step === "number") now += step;
          else {
            first ??= now;
            collector.accept(step);
          }
        }
        const durations = collector.finish().reasoning.map((item) => item.duration_ms ?? 0);
        for (const duration of durations) expect(duration).toBeGreaterThanOrEqual(0);
        // Each duration is rounded: allow half a millisecond per item.
        const total = durations.reduce((sum, duration) => sum + duration, 0);
        expect(total).toBeLessThanOrEqual(now - (first ?? now) + durations.length * 0.5);
      }),
    );
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
