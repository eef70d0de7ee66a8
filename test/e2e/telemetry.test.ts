/**
 * OpenTelemetry traces, exported by the real daemon to a real OTLP/HTTP receiver (both
 * encodings), checked span by span for a turn with a tool call, against the session's stored
 * log: each entry of the turn names the turn's trace and span, and the spans name the entries'
 * hashes. A relayed input on a two-node cluster continues the caller's trace; without the
 * variables nothing is traced and the entries carry no trace ids.
 */
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import {
  type OtlpReceiver,
  type ReceivedPoint,
  type ReceivedSpan,
  startOtlpReceiver,
} from "../support/otlp-receiver.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { fixtureModel, startFixture } from "./support/fixture.js";
import { TestCluster } from "./support/test-cluster.js";

/** A caller's own span, as a client that traces would send it. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

interface StoredEntry {
  position: number;
  hash: string;
  entry: { kind: string; turn_id?: string; trace_id?: string; span_id?: string };
}

function storedEntries(app: DaemonHarness, sessionId: string): StoredEntry[] {
  const db = new Database(app.dbPath, { readonly: true });
  try {
    const rows = db
      .prepare("SELECT position, hash, entry FROM transcript WHERE session = ? ORDER BY position")
      .all(sessionId) as { position: number; hash: string; entry: string }[];
    return rows.map((row) => ({ position: row.position, hash: row.hash, entry: JSON.parse(row.entry) }));
  } finally {
    db.close();
  }
}

async function promptTraced(app: DaemonHarness, sessionId: string, words: string, traceparent: string) {
  const answer = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
    method: "PUT",
    headers: { traceparent },
    body: { kind: "message", text: words },
  });
  expect(answer.status).toBe(202);
  await app.idle(sessionId);
}

const named = (spans: readonly ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe("traces exported over OTLP/HTTP with JSON", () => {
  let receiver: OtlpReceiver;
  let fixture: Awaited<ReturnType<typeof startFixture>>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    fixture = await startFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "skein-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_METRIC_EXPORT_INTERVAL: "200",
    });
  });
  afterAll(async () => {
    await fixture?.app.close();
    await fixture?.provider.close();
    await receiver?.close();
  });

  it("trace a turn with a tool call span by span, each span tied to the log's entries", async () => {
    const { app, provider } = fixture;
    const sessionId = await app.createSession();
    provider.queue(toolCalls([{ name: "list_files", args: { path: "." } }]), text("done"));
    const caller = callerContext();
    await promptTraced(app, sessionId, "look around", caller.traceparent);
    await receiver.waitFor((spans) => named(spans, "invoke_agent skein").length === 1);
    const spans = receiver.spans.filter((span) => span.traceId === caller.traceId);
    expect(receiver.contentTypes.every((type) => type.startsWith("application/json"))).toBe(true);

    const [admission] = named(spans, "skein.admission");
    expect(admission).toMatchObject({
      parentSpanId: caller.spanId,
      kind: 2,
      serviceName: "skein-under-test",
    });
    expect(admission!.attributes).toMatchObject({
      "skein.session.id": sessionId,
      "http.response.status_code": 202,
    });

    const [turn] = named(spans, "invoke_agent skein");
    expect(turn!.parentSpanId).toBe(admission!.spanId);
    expect(turn!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.conversation.id": sessionId,
      "skein.session.id": sessionId,
      "skein.turn.state": "completed",
      "skein.turn.outcome": "finished",
    });
    expect(turn!.statusCode).not.toBe(2);

    const requests = named(spans, `chat ${fixtureModel}`);
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(request.parentSpanId).toBe(turn!.spanId);
      expect(request.kind).toBe(3);
      expect(request.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": fixtureModel,
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
      });
      expect(typeof request.attributes["gen_ai.system"]).toBe("string");
    }
    const reasons = requests.map((request) => request.attributes["gen_ai.response.finish_reasons"]);
    expect(reasons).toEqual(expect.arrayContaining([["tool_use"], ["end_turn"]]));

    const [tool] = named(spans, "execute_tool list_files");
    expect(tool!.parentSpanId).toBe(turn!.spanId);
    expect(tool!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "list_files",
    });
    const [approval] = named(spans, "skein.approval");
    expect(approval!.parentSpanId).toBe(tool!.spanId);
    expect(approval!.attributes["skein.approval.decision"]).toBe("continue");

    // The log: every entry of the turn carries the turn's trace and span; the spans carry hashes of it.
    const entries = storedEntries(app, sessionId);
    const ofTurn = entries.filter((stored) => stored.entry.turn_id === turn!.attributes["skein.run.id"]);
    expect(ofTurn.length).toBeGreaterThanOrEqual(3);
    for (const stored of ofTurn) {
      expect(stored.entry).toMatchObject({ trace_id: caller.traceId, span_id: turn!.spanId });
    }
    const hashes = new Map(entries.map((stored) => [stored.hash, stored.position]));
    const commits = named(spans, "skein.commit");
    expect(commits.length).toBeGreaterThanOrEqual(2);
    for (const commit of commits) {
      expect(commit.parentSpanId).toBe(turn!.spanId);
      const hash = String(commit.attributes["skein.log.entry_hash"]);
      expect(hashes.get(hash)).toBe(commit.attributes["skein.log.last_position"]);
    }
    expect(turn!.attributes["skein.log.entry_hash"]).toBe(entries.at(-1)!.hash);
  });

  it("push the metrics GET /metrics shows over OTLP too, counters, gauges and histograms alike", async () => {
    const { app } = fixture;
    const point = (points: readonly ReceivedPoint[], metric: string, labels: Record<string, string> = {}) =>
      points.find(
        (candidate) =>
          candidate.metric === metric &&
          Object.entries(labels).every(([key, value]) => candidate.attributes[key] === value),
      );
    // The first test's turn: one completed, one tool call, two model requests.
    const settled = () => {
      const last = receiver.metricExports.at(-1) ?? [];
      return point(last, "skein_turns_total", { state: "completed" })?.value === 1;
    };
    await receiver.waitFor(() => settled());
    const points = receiver.metricExports.at(-1)!;
    expect(point(points, "skein_turns_total", { state: "completed" })?.kind).toBe("sum");
    expect(point(points, "skein_tool_calls_total", { tool: "list_files", outcome: "ok" })?.value).toBe(1);
    const requests = point(points, "skein_model_request_duration_seconds", {
      model: fixtureModel,
      outcome: "ok",
    });
    expect(requests?.kind).toBe("histogram");
    expect(requests?.value).toBe(2);
    expect(requests?.bucketCounts?.reduce((total, count) => total + count, 0)).toBe(2);
    expect(point(points, "skein_sessions", { state: "loaded" })?.kind).toBe("gauge");
    // The scrape and the export read one registry.
    const scraped = (await app.api("/metrics")).text;
    expect(scraped).toContain('skein_turns_total{state="completed"} 1');
  });

  it("trace a first input sent with its session's creation like any input: its admission, then its turn", async () => {
    const { app, provider } = fixture;
    provider.reset();
    provider.script = () => text("fine");
    const caller = callerContext();
    const sessionId = uuidv7();
    const created = await app.api(`/sessions/${sessionId}`, {
      method: "PUT",
      headers: { "if-none-match": "*", traceparent: caller.traceparent },
      body: {
        kind: "new",
        workspace: app.workspace,
        input: { id: uuidv7(), kind: "message", text: "hello" },
      },
    });
    expect(created.status).toBe(201);
    await app.idle(sessionId);
    await receiver.waitFor((spans) =>
      spans.some(
        (span) => span.name === "invoke_agent skein" && span.attributes["skein.session.id"] === sessionId,
      ),
    );
    const spans = receiver.spans.filter((span) => span.traceId === caller.traceId);
    const [admission] = named(spans, "skein.admission");
    expect(admission).toMatchObject({ parentSpanId: caller.spanId });
    expect(admission!.attributes).toMatchObject({
      "skein.session.id": sessionId,
      "http.response.status_code": 201,
    });
    const [turn] = named(spans, "invoke_agent skein");
    expect(turn!.parentSpanId).toBe(admission!.spanId);
    // The turn's entries, its start's (written by the creation) included, carry its trace.
    const entries = storedEntries(app, sessionId).filter((stored) => stored.entry.turn_id !== undefined);
    expect(entries.map((stored) => stored.entry.kind)).toContain("user_input");
    expect(entries.every((stored) => stored.entry.trace_id === caller.traceId)).toBe(true);
  });

  it("start a trace of its own for an input sent without a traceparent, or with a malformed one", async () => {
    const { app } = fixture;
    fixture.provider.reset();
    fixture.provider.script = () => text("fine");
    const sessionId = await app.createSession();
    await promptTraced(app, sessionId, "hello", "00-not-a-trace-01");
    await receiver.waitFor((spans) =>
      spans.some(
        (span) => span.name === "invoke_agent skein" && span.attributes["skein.session.id"] === sessionId,
      ),
    );
    const admission = receiver.spans.find(
      (span) => span.name === "skein.admission" && span.attributes["skein.session.id"] === sessionId,
    );
    expect(admission!.parentSpanId).toBe("");
    const entries = storedEntries(app, sessionId).filter((stored) => stored.entry.turn_id !== undefined);
    expect(entries.every((stored) => stored.entry.trace_id === admission!.traceId)).toBe(true);
  });
});

describe("traces exported over OTLP/HTTP with protobuf (the default protocol)", () => {
  it("send the spans of a plain turn as protobuf that decodes with the published messages", async () => {
    const receiver = await startOtlpReceiver();
    const fixture = await startFixture({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
    try {
      fixture.provider.script = () => text("fine");
      const sessionId = await fixture.app.createSession();
      const caller = callerContext();
      await promptTraced(fixture.app, sessionId, "hello", caller.traceparent);
      await receiver.waitFor((spans) => named(spans, "invoke_agent skein").length === 1);
      expect(receiver.contentTypes.every((type) => type.startsWith("application/x-protobuf"))).toBe(true);
      const [turn] = named(receiver.spans, "invoke_agent skein");
      expect(turn!.traceId).toBe(caller.traceId);
      expect(turn!.serviceName).toBe("skein");
      expect(named(receiver.spans, `chat ${fixtureModel}`)[0]!.attributes["gen_ai.request.model"]).toBe(
        fixtureModel,
      );
    } finally {
      await fixture.app.close();
      await fixture.provider.close();
      await receiver.close();
    }
  });
});

describe("without the OpenTelemetry variables", () => {
  it("trace nothing: the entries carry no trace ids", async () => {
    const fixture = await startFixture();
    try {
      fixture.provider.script = () => text("fine");
      const sessionId = await fixture.app.createSession();
      await promptTraced(fixture.app, sessionId, "hello", callerContext().traceparent);
      const entries = storedEntries(fixture.app, sessionId);
      expect(entries.length).toBeGreaterThan(2);
      expect(entries.some((stored) => "trace_id" in stored.entry || "span_id" in stored.entry)).toBe(false);
    } finally {
      await fixture.app.close();
      await fixture.provider.close();
    }
  });
});

describe("a relayed input on a two-node cluster", () => {
  it("continue the caller's trace through the relaying node to the owner's turn", async () => {
    const receiver = await startOtlpReceiver();
    const provider = await FakeProvider.start();
    const cluster = new TestCluster(provider);
    try {
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "50",
      };
      const [a, b] = await cluster.start(2, 2, () => ({ env }));
      const sessionId = await a!.createSession();
      await a!.turn(sessionId, "first");
      expect(await cluster.ownerOf(sessionId)).toBe(await cluster.nodeIdOf(a!));
      const caller = callerContext();
      // Sent to the node that does not own the session: it relays the input to the owner.
      await promptTraced(b!, sessionId, "second", caller.traceparent);
      // Each node exports its own spans, in its own time.
      await receiver.waitFor((spans) =>
        ["skein.relay", "skein.admission", "invoke_agent skein"].every((name) =>
          spans.some((span) => span.traceId === caller.traceId && span.name === name),
        ),
      );
      const spans = receiver.spans.filter((span) => span.traceId === caller.traceId);
      const [relay] = named(spans, "skein.relay");
      expect(relay!.parentSpanId).toBe(caller.spanId);
      expect(relay!.kind).toBe(3);
      const [admission] = named(spans, "skein.admission");
      expect(admission!.parentSpanId).toBe(relay!.spanId);
      const [turn] = named(spans, "invoke_agent skein");
      expect(turn!.parentSpanId).toBe(admission!.spanId);
      const rows = await cluster.schema.query<{ entry: string }>(
        "SELECT entry FROM transcript WHERE session = $1 ORDER BY position",
        [sessionId],
      );
      const traced = rows
        .map((row) => JSON.parse(row.entry))
        .filter((entry) => entry.trace_id === caller.traceId);
      expect(traced.length).toBeGreaterThanOrEqual(2);
    } finally {
      await cluster.close();
      await provider.close();
      await receiver.close();
    }
  });
});
