/**
 * An OTLP/HTTP trace receiver for tests: a real HTTP server on loopback that accepts
 * `POST /v1/traces` as the OpenTelemetry protocol specifies it, in both encodings (JSON, and
 * protobuf decoded with the published message definitions below), and keeps every span it got.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

/** A received span, flattened: ids as lowercase hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** The OTLP SpanKind number (1 internal, 2 server, 3 client). */
  kind: number;
  attributes: Record<string, unknown>;
  /** The OTLP StatusCode number (0 unset, 1 ok, 2 error). */
  statusCode: number;
  links: { traceId: string; spanId: string }[];
  serviceName: unknown;
}

// The messages of opentelemetry-proto's collector/trace/v1 request, as published (field numbers
// and types are the wire contract; fields a test never reads are left out, protobuf skips them).
const otlpTraceProto = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  repeated Link links = 13; Status status = 15; fixed32 flags = 16;
  message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; }
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const requestType = protobuf
  .parse(otlpTraceProto, { keepCase: false })
  .root.lookupType("otlp.ExportTraceServiceRequest");

/** One data point of a received metric (OTLP/JSON), flattened. */
export interface ReceivedPoint {
  metric: string;
  kind: "sum" | "gauge" | "histogram";
  attributes: Record<string, unknown>;
  /** A sum's or gauge's value; a histogram's count. */
  value: number;
  /** A histogram's sum, and its per-bucket counts. */
  sum?: number;
  bucketCounts?: number[];
}

/** A running receiver: its endpoint (for OTEL_EXPORTER_OTLP_ENDPOINT), what it got, and how it was sent. */
export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every metrics export received (OTLP/JSON), newest last, each flattened to its points. */
  metricExports: ReceivedPoint[][];
  contentTypes: string[];
  /** Resolves once `predicate` holds for the spans received (polls; rejects after `timeoutMs`). */
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Start a receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const metricExports: ReceivedPoint[][] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const type = request.headers["content-type"] ?? "";
      if (request.method !== "POST" || (request.url !== "/v1/traces" && request.url !== "/v1/metrics")) {
        response.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      if (request.url === "/v1/metrics" && request.method === "POST" && type.startsWith("application/json")) {
        metricExports.push(pointsOf(JSON.parse(body.toString("utf8"))));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      contentTypes.push(type);
      try {
        if (type.startsWith("application/json")) {
          spans.push(...spansOf(JSON.parse(body.toString("utf8")), jsonId));
          response.writeHead(200, { "content-type": "application/json" }).end("{}");
        } else if (type.startsWith("application/x-protobuf")) {
          const decoded = requestType.toObject(requestType.decode(body), { longs: String, bytes: String });
          spans.push(...spansOf(decoded, protobufId));
          response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
        } else response.writeHead(415).end();
      } catch (error) {
        response.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metricExports,
    contentTypes,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(`spans not received in time: ${JSON.stringify(spans.map((s) => s.name))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Json = Record<string, unknown>;

/**
 * The spans of a request in OTLP's JSON mapping (what protobufjs's `toObject` gives too, but for
 * the ids: hex strings in OTLP/JSON, base64 of the bytes from protobuf); `hex` reads an id.
 */
function spansOf(request: Json, hex: (id: unknown) => string): ReceivedSpan[] {
  const received: ReceivedSpan[] = [];
  for (const resourceSpans of (request.resourceSpans as Json[] | undefined) ?? []) {
    const resource = attributesOf((resourceSpans.resource as Json | undefined)?.attributes);
    for (const scopeSpans of (resourceSpans.scopeSpans as Json[] | undefined) ?? []) {
      for (const span of (scopeSpans.spans as Json[] | undefined) ?? []) {
        received.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: String(span.name),
          kind: Number(span.kind ?? 0),
          attributes: attributesOf(span.attributes),
          statusCode: Number((span.status as Json | undefined)?.code ?? 0),
          links: ((span.links as Json[] | undefined) ?? []).map((link) => ({
            traceId: hex(link.traceId),
            spanId: hex(link.spanId),
          })),
          serviceName: resource["service.name"],
        });
      }
    }
  }
  return received;
}

const jsonId = (id: unknown): string => String(id ?? "");
const protobufId = (id: unknown): string => Buffer.from(String(id ?? ""), "base64").toString("hex");

/** OTLP key-values as plain values (both encodings decode to the same JSON mapping here). */
function attributesOf(list: unknown): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const pair of (list as Json[] | undefined) ?? [])
    attributes[String(pair.key)] = plainValue(pair.value as Json);
  return attributes;
}

function plainValue(value: Json | undefined): unknown {
  if (value === undefined) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("arrayValue" in value)
    return (((value.arrayValue as Json).values as Json[] | undefined) ?? []).map(plainValue);
  return undefined;
}

/** The points of an OTLP/JSON metrics request. */
function pointsOf(request: Json): ReceivedPoint[] {
  const points: ReceivedPoint[] = [];
  for (const resourceMetrics of (request.resourceMetrics as Json[] | undefined) ?? []) {
    for (const scopeMetrics of (resourceMetrics.scopeMetrics as Json[] | undefined) ?? []) {
      for (const metric of (scopeMetrics.metrics as Json[] | undefined) ?? []) {
        for (const kind of ["sum", "gauge", "histogram"] as const) {
          const data = metric[kind] as Json | undefined;
          for (const point of (data?.dataPoints as Json[] | undefined) ?? []) {
            const attributes = attributesOf(point.attributes);
            const metricName = String(metric.name);
            if (kind === "histogram") {
              const bucketCounts = ((point.bucketCounts as unknown[]) ?? []).map(Number);
              points.push({
                metric: metricName,
                kind,
                attributes,
                value: Number(point.count),
                sum: Number(point.sum),
                bucketCounts,
              });
            } else
              points.push({
                metric: metricName,
                kind,
                attributes,
                value: Number(point.asDouble ?? point.asInt),
              });
          }
        }
      }
    }
  }
  return points;
}
