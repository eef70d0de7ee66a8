/**
 * The daemon's tracing: OpenTelemetry spans for admissions, relays and turns, exported as the
 * standard environment variables say (telemetry-settings.ts). Off, there is no `Tracing` at all
 * (the daemon's parts hold `undefined` and skip every call), so tracing costs nothing unless it
 * is configured; the SDK and its exporters are loaded only then.
 *
 * Boundary rule: the one place that starts or stops the SDK. Spans get their parent passed in
 * (no context manager, no async-local storage): a turn's trace reaches its parts through the
 * turn (turn-trace.ts), and an input's admission reaches its turn through `#admitted`.
 */
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { telemetryResource } from "./telemetry-resource.js";
import type { SamplerSetting, TelemetrySettings } from "./telemetry-settings.js";
import { TurnTrace } from "./turn-trace.js";

/** An admission's or a relay's span, ended once its answer is known. */
export interface RequestSpan {
  /** The `traceparent` header naming this span, for a request sent on behalf of it. */
  readonly traceparent: string;
  /** The request was answered with `status` (a 4xx or 5xx marks the span failed). */
  end(status: number): void;
}

/** How many admitted inputs' spans are remembered for the turns that will deliver them. */
const admittedKept = 10_000;

const headerGetter: TextMapGetter<Record<string, string | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

export class Tracing {
  readonly #provider: TracerProvider;
  readonly #tracer: Tracer;
  readonly #extract: (traceparent: string | undefined) => Context;
  /** The admission span of each input not yet delivered by a turn (oldest first). */
  readonly #admitted = new Map<string, Span>();

  private constructor(provider: TracerProvider, extract: (traceparent: string | undefined) => Context) {
    this.#provider = provider;
    this.#tracer = provider.getTracer("skein");
    this.#extract = extract;
  }

  /** Start the SDK with `settings`; `version` is the daemon's, for the resource. */
  static async start(settings: TelemetrySettings, version: string): Promise<Tracing> {
    const [sdk, core] = await Promise.all([
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/core"),
    ]);
    const exporters = await Promise.all(settings.exports.map((kind) => exporterOf(kind, sdk)));
    const resource = await telemetryResource(version);
    const provider = new sdk.TracerProvider({
      resource,
      sampler: samplerOf(settings.sampler, sdk),
      spanProcessors: exporters.map(
        (exporter) => new sdk.BatchSpanProcessor({ exporter, ...settings.batch }),
      ),
    });
    const propagator = new core.W3CTraceContextPropagator();
    return new Tracing(provider, (traceparent) =>
      traceparent === undefined
        ? ROOT_CONTEXT
        : propagator.extract(ROOT_CONTEXT, { traceparent }, headerGetter),
    );
  }

  /**
   * An input arrives for session `sessionId`: its admission span, a child of the caller's
   * `traceparent` (a client's, or the node that relayed it) when there is a valid one.
   */
  admission(sessionId: string, inputId: string, traceparent: string | undefined): RequestSpan {
    const span = this.#tracer.startSpan(
      "skein.admission",
      {
        kind: SpanKind.SERVER,
        attributes: {
          "skein.session.id": sessionId,
          "skein.input.id": inputId,
          "gen_ai.conversation.id": sessionId,
        },
      },
      this.#extract(traceparent),
    );
    this.#remember(`${sessionId}\n${inputId}`, span);
    return requestSpan(span);
  }

  /** A request relayed to the node that owns its session: a client span under the caller's `traceparent`. */
  relay(method: string, path: string, ownerNode: string, traceparent: string | undefined): RequestSpan {
    const span = this.#tracer.startSpan(
      "skein.relay",
      {
        kind: SpanKind.CLIENT,
        attributes: { "http.request.method": method, "url.path": path, "skein.node.owner": ownerNode },
      },
      this.#extract(traceparent),
    );
    return requestSpan(span);
  }

  /** Turn `turnId` of the session starts, delivering `inputIds`: its trace continues the first input's admission. */
  turn(sessionId: string, turnId: string, inputIds: readonly string[]): TurnTrace {
    const admissions: Span[] = [];
    for (const inputId of inputIds) {
      const key = `${sessionId}\n${inputId}`;
      const span = this.#admitted.get(key);
      if (span === undefined) continue;
      this.#admitted.delete(key);
      admissions.push(span);
    }
    const parent = admissions[0] === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, admissions[0]);
    const links = admissions.slice(1).map((span) => ({ context: span.spanContext() }));
    return new TurnTrace(this.#tracer, parent, { sessionId, turnId, inputIds, links });
  }

  /** Export what is buffered (the daemon stops): waits at most a few seconds. */
  async shutdown(): Promise<void> {
    await this.#provider.shutdown().catch(() => undefined);
  }

  /** Export what is buffered now (tests and `skein daemon stop`). */
  async flush(): Promise<void> {
    await this.#provider.forceFlush();
  }

  #remember(key: string, span: Span): void {
    this.#admitted.set(key, span);
    if (this.#admitted.size <= admittedKept) return;
    const oldest = this.#admitted.keys().next().value;
    if (oldest !== undefined) this.#admitted.delete(oldest);
  }
}

function requestSpan(span: Span): RequestSpan {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return {
    traceparent: `00-${traceId}-${spanId}-0${(traceFlags & 1).toString(16)}`,
    end(status) {
      span.setAttribute("http.response.status_code", status);
      if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

type Sdk = typeof import("@opentelemetry/sdk-trace");

async function exporterOf(kind: TelemetrySettings["exports"][number], sdk: Sdk): Promise<SpanExporter> {
  switch (kind) {
    case "console":
      return new sdk.ConsoleSpanExporter();
    case "otlp-json":
      return new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter();
    case "otlp-protobuf":
      return new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter();
    default: {
      const unknown: never = kind;
      throw new Error(`unknown span export ${String(unknown)}`);
    }
  }
}

function samplerOf(setting: SamplerSetting, sdk: Sdk) {
  switch (setting.kind) {
    case "always_on":
      return new sdk.AlwaysOnSampler();
    case "always_off":
      return new sdk.AlwaysOffSampler();
    case "traceidratio":
      return new sdk.TraceIdRatioBasedSampler(setting.ratio);
    case "parentbased_always_on":
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
    case "parentbased_always_off":
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(setting.ratio) });
    default: {
      const unknown: never = setting;
      throw new Error(`unknown sampler ${JSON.stringify(unknown)}`);
    }
  }
}
