import { ROOT_CONTEXT } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { TurnTrace } from "../../../src/daemon/telemetry/turn-trace.js";
import { toolCall } from "../../../src/model/items.js";

function traced() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const trace = new TurnTrace(provider.getTracer("test"), ROOT_CONTEXT, {
    sessionId: "s1",
    turnId: "t1",
    inputIds: ["i1"],
    links: [],
  });
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string): ReadableSpan => {
    const span = spans().find((candidate) => candidate.name === name);
    if (span === undefined)
      throw new Error(
        `no span ${name} among ${spans()
          .map((s) => s.name)
          .join(", ")}`,
      );
    return span;
  };
  return { trace, spans, named };
}

describe("a turn's trace", () => {
  it("puts each request, tool call, approval and commit under the turn's span", () => {
    const { trace, named } = traced();
    trace.requestStarted(0, "gemini", "gemini-2.5-flash");
    trace.requestStopped("tool_use");
    trace.requestEnded({ input_tokens: 12, output_tokens: 3, cache_read_tokens: 8 });
    const call = toolCall("c1", "files__read", "{}");
    trace.toolCalled(call);
    trace.approval("c1")("continue");
    trace.toolEnded("c1", { isError: false });
    trace.commitStarted(2).written(4, 5, "ab".repeat(32));
    trace.end("completed", "finished", null, "cd".repeat(32));

    const turn = named("invoke_agent skein");
    expect(turn.spanContext().spanId).toBe(trace.ids.span_id);
    expect(turn.attributes).toMatchObject({ "skein.run.id": "t1", "skein.log.entry_hash": "cd".repeat(32) });
    const request = named("chat gemini-2.5-flash");
    expect(request.parentSpanContext?.spanId).toBe(trace.ids.span_id);
    expect(request.attributes).toMatchObject({
      "gen_ai.system": "gcp.gemini",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 3,
      "gen_ai.usage.cache_read.input_tokens": 8,
      "gen_ai.response.finish_reasons": ["tool_use"],
    });
    const tool = named("execute_tool files__read");
    expect(tool.attributes["skein.mcp.server"]).toBe("files");
    expect(named("skein.approval").parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
    expect(named("skein.commit").attributes).toMatchObject({
      "skein.log.first_position": 4,
      "skein.log.last_position": 5,
      "skein.log.entry_hash": "ab".repeat(32),
    });
  });

  it("ends a request and a tool the turn's end cut short as failed, and marks a failed turn", () => {
    const { trace, spans, named } = traced();
    trace.requestStarted(0, "openai", "gpt");
    trace.toolCalled(toolCall("c1", "bash", "{}"));
    trace.end("failed", "error", "provider_error", null);
    expect(spans()).toHaveLength(3);
    expect(named("chat gpt").status.code).toBe(2);
    expect(named("execute_tool bash").attributes["skein.tool.outcome"]).toBe("turn ended");
    expect(named("invoke_agent skein").attributes["error.type"]).toBe("provider_error");
    expect(named("invoke_agent skein").attributes["skein.log.entry_hash"]).toBeUndefined();
  });

  it("records a refused commit and a failed compaction as errors", () => {
    const { trace, named } = traced();
    trace.commitStarted(1).failed(new Error("disk full"));
    trace.compactionStarted()(new Error("summary refused"));
    trace.end("completed", "finished", null, null);
    expect(named("skein.commit").status.code).toBe(2);
    expect(named("skein.compaction").events[0]?.name).toBe("exception");
  });
});
