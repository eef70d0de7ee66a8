/**
 * A traced turn as the log writer sees it, against a small port on real SQLite storage: its
 * entries (held ones too) carry the turn's trace ids as stored, each commit gets a span naming
 * the stored hash, other turns' entries are left alone, and log lines name the trace.
 */
import { ROOT_CONTEXT } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it } from "vitest";
import { turnLogFields } from "../../../src/daemon/session/log-fields.js";
import { TurnTrace } from "../../../src/daemon/telemetry/turn-trace.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { type TestPort, testPort } from "./test-port.js";

describe("a traced turn's entries and log lines", () => {
  let env: TestPort | null = null;
  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  it("carry the turn's trace and span ids as stored, with a span per commit naming the stored hash", async () => {
    env = await testPort();
    const { port, storage, sessionId } = env;
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const trace = new TurnTrace(provider.getTracer("test"), ROOT_CONTEXT, {
      sessionId,
      turnId: "t1",
      inputIds: [],
      links: [],
    });
    port.log.trace("t1", trace);
    port.log.hold([{ kind: "assistant_items", ts: 2, items: [assistantMessage("held")], turn_id: "t1" }]);
    await port.log.commit([
      { kind: "user_input", ts: 3, item: userMessage("traced"), turn_id: "t1" },
      { kind: "user_input", ts: 4, item: userMessage("another turn"), turn_id: "t2" },
      { kind: "user_input", ts: 5, item: userMessage("no turn") },
    ]);
    expect(turnLogFields(port, "t1")).toEqual({
      session_id: sessionId,
      run_id: "t1",
      trace_id: trace.ids.trace_id,
    });
    port.log.untrace("t1");
    await port.log.commit([{ kind: "user_input", ts: 6, item: userMessage("after"), turn_id: "t1" }]);

    const stored = await storage.readLog(sessionId);
    const ids = stored.map(({ entry }) => ("trace_id" in entry ? [entry.trace_id, entry.span_id] : null));
    const traced = [trace.ids.trace_id, trace.ids.span_id];
    expect(ids).toEqual([null, traced, traced, null, null, null]);
    const [commit] = exporter.getFinishedSpans();
    expect(commit?.name).toBe("skein.commit");
    expect(commit?.attributes).toMatchObject({
      "skein.log.entries": 4,
      "skein.log.first_position": 1,
      "skein.log.last_position": 4,
      "skein.log.entry_hash": stored[4]!.hash,
    });
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    expect(turnLogFields(port, "t1")).toEqual({ session_id: sessionId, run_id: "t1" });
    expect(turnLogFields(port, null)).toEqual({ session_id: sessionId });
  });
});
