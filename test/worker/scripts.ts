/** Scripted responses and small real tools shared by the worker tests (not a test file itself). */
import {
  statusEvent,
  textBlockStart,
  textBlockStop,
  textDelta,
  toolInputDelta,
  toolUseStart,
  toolUseStop,
} from "../../src/model/events.js";
import type { ToolContext, ToolDefinition, ToolOutput } from "../../src/model/tools.js";
import type { MockStep } from "../support/mock-llm-client.js";

/** A plain text answer. */
export function textResponse(text: string): MockStep[] {
  return [textBlockStart(0), textDelta(0, text), textBlockStop(0, "end_turn"), statusEvent("completed")];
}

export interface ScriptedCall {
  id: string;
  name: string;
  args: string;
}

/** A response made of tool calls only, each with an explicit start, input and stop. */
export function toolCallResponse(...calls: ScriptedCall[]): MockStep[] {
  const steps: MockStep[] = [];
  calls.forEach((call, index) => {
    steps.push(toolUseStart(index, call.id, call.name), toolInputDelta(index, call.args), toolUseStop(index));
  });
  steps.push(statusEvent("completed", "tool_use"));
  return steps;
}

/** The seed's weather round trip: one get_weather call, then a final answer. */
export function weatherRoundTrip(): MockStep[][] {
  return [
    toolCallResponse({ id: "call_1", name: "get_weather", args: '{"city":"Tokyo"}' }),
    textResponse("It's sunny in Tokyo!"),
  ];
}

/** A tool whose behaviour the test supplies. */
export function defineTool(
  name: string,
  execute: (input: string, context: ToolContext) => Promise<ToolOutput>,
): ToolDefinition {
  return () => ({
    meta: { name, description: `The ${name} tool`, input_schema: { type: "object" } },
    tool: { execute },
  });
}

/** A tool that records its inputs and answers with a fixed output. */
export function recordingTool(name: string, output: ToolOutput = "ok") {
  const inputs: string[] = [];
  const definition = defineTool(name, async (input) => {
    inputs.push(input);
    return output;
  });
  return { definition, inputs };
}

/** The seed's MockWeatherTool. */
export function weatherTool(): ToolDefinition {
  return () => ({
    meta: {
      name: "get_weather",
      description: "Get weather",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    tool: { execute: async () => "Sunny, 25C" },
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolver, for making a test wait until something happened. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
