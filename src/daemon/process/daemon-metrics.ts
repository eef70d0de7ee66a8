/**
 * The daemon's metrics in Prometheus's text format (`GET /metrics`), every name starting with
 * `skein_`. Counters follow what sessions publish (every event passes `observe`, after the
 * session's clients): turns per end state, inputs per delivery, tool calls per tool and
 * outcome, model requests and tokens per model, retries, approvals and compactions. Gauges and
 * totals that something else already counts are read when scraped: loaded, running and waiting
 * sessions and their stream watchers, the group commit's transactions and fsyncs, the cluster
 * node's leases and takeovers, MCP server instances per state, and the process's own figures.
 *
 * Boundary rule: a registry of this daemon's own (never prom-client's global one, so two
 * daemons in one process do not share counters); what it reads comes in as functions.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { McpStatus } from "../../api/mcp-status.js";
import type { GcReport } from "../../api/retention.js";
import type { SessionEventData } from "../../api/session-events.js";
import type { SessionCensus } from "../actor/session-census.js";
import type { NodeHealth } from "../cluster/node-health.js";
import type { SessionMeter } from "../session/session-services.js";
import { type MetricsExport, startMetricsExport } from "../telemetry/metrics-export.js";
import type { MetricsExportSettings } from "../telemetry/telemetry-settings.js";
import { EventLoopLag, eventLoopLagNames } from "./event-loop-lag.js";

/** What the scrape-time figures are read from. */
export interface MetricSources {
  census(): SessionCensus;
  commitStats(): { transactions: number; requests: number; fsyncs?: number };
  mcp(): McpStatus;
  /** Absent without a cluster. */
  node?: () => NodeHealth;
}

/**
 * prom-client's own event-loop sampler is given this resolution (ms), about 24 days, so that it
 * never wakes the process: it starts at once and cannot be left out, and its metrics are
 * replaced by event-loop-lag.ts's, which sample only while the metrics are read.
 */
const idleSamplerMs = 2 ** 31 - 1;

const metricPrefix = "skein_";

/** A Prometheus registry fed by session events and timings, and read from `sources` when scraped. */
export class DaemonMetrics implements SessionMeter {
  readonly registry = new Registry();
  readonly #turns: Counter<"state">;
  readonly #inputs: Counter<"outcome">;
  readonly #tools: Counter<"tool" | "outcome">;
  readonly #requests: Counter<"model">;
  readonly #tokens: Counter<"model" | "kind">;
  readonly #retries: Counter;
  readonly #approvals: Counter<"decision">;
  readonly #compactions: Counter<"result">;
  readonly #retainedSessions: Counter<"action">;
  readonly #retainedBytes: Counter;
  readonly #requestSeconds: Histogram<"profile" | "model" | "outcome">;
  readonly #commitSeconds: Histogram;
  readonly #sseBytes: Counter;
  readonly #eventLoopLag: EventLoopLag;
  /** The OTLP export of these metrics, when configured (resolves null when not, or when it could not start). */
  #export: Promise<MetricsExport | null> = Promise.resolve(null);

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers });
    this.#turns = counter("skein_turns_total", "Turns ended, by end state", ["state"]);
    this.#inputs = counter("skein_inputs_total", "Inputs, by outcome (admitted, delivered, cancelled)", [
      "outcome",
    ]);
    this.#tools = counter("skein_tool_calls_total", "Tool calls ended, by tool and outcome (ok, error)", [
      "tool",
      "outcome",
    ]);
    this.#requests = counter("skein_model_requests_total", "Model requests answered with usage, by model", [
      "model",
    ]);
    this.#tokens = counter("skein_model_tokens_total", "Tokens of model requests, by model and kind", [
      "model",
      "kind",
    ]);
    this.#retries = counter("skein_model_retries_total", "Model requests retried");
    this.#approvals = counter("skein_approvals_total", "Approval requests answered, by decision", [
      "decision",
    ]);
    this.#compactions = counter("skein_compactions_total", "Compactions ended, by result", ["result"]);
    this.#retainedSessions = counter(
      "skein_retention_sessions_total",
      "Sessions retention deleted (idle) or pruned (log cut), by action",
      ["action"],
    );
    this.#retainedBytes = counter("skein_retention_bytes_total", "Bytes of log entries retention removed");
    this.#requestSeconds = new Histogram({
      name: "skein_model_request_duration_seconds",
      help: "Model requests, from sent to their response committed (or failed), by profile, model and outcome",
      labelNames: ["profile", "model", "outcome"],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.#commitSeconds = new Histogram({
      name: "skein_commit_duration_seconds",
      help: "Commits of session logs, from begun to durable",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    });
    this.#sseBytes = counter("skein_sse_bytes_total", "Bytes written to session streams (SSE)");
    this.#scraped(sources);
    collectDefaultMetrics({
      register: this.registry,
      prefix: metricPrefix,
      eventLoopMonitoringPrecision: idleSamplerMs,
    });
    for (const name of eventLoopLagNames) this.registry.removeSingleMetric(metricPrefix + name);
    this.#eventLoopLag = new EventLoopLag(this.registry, metricPrefix);
  }

  /** Push these metrics as `settings` say too (in the background; a failure to start is told to `failed`). */
  exportWith(settings: MetricsExportSettings, version: string, failed: (error: unknown) => void): void {
    this.#export = startMetricsExport(settings, this.registry, version).catch((error: unknown) => {
      failed(error);
      return null;
    });
  }

  /** Export once more, stop exporting and stop sampling the event loop (the daemon stops). */
  async stop(): Promise<void> {
    await (await this.#export)?.shutdown();
    this.#eventLoopLag.stop();
  }

  /** A model request ended (see SessionMeter). */
  modelRequest(profile: string, model: string, seconds: number, outcome: "ok" | "error"): void {
    this.#requestSeconds.observe({ profile, model, outcome }, seconds);
  }

  /** A commit was durable (see SessionMeter). */
  commit(seconds: number): void {
    this.#commitSeconds.observe(seconds);
  }

  /** Bytes went out on a session stream. */
  sseBytes(bytes: number): void {
    this.#sseBytes.inc(bytes);
  }

  /** Count what a retention run removed (not dry runs). */
  retained(report: GcReport): void {
    this.#retainedSessions.inc({ action: "deleted" }, report.deleted.length);
    this.#retainedSessions.inc({ action: "pruned" }, report.pruned.length);
    this.#retainedBytes.inc(report.bytes_freed);
  }

  /** One event a session published. */
  observe<T extends keyof SessionEventData>(_sessionId: string, type: T, data: SessionEventData[T]): void {
    this.#count({ type, data } as ObservedEvent);
  }

  #count(event: ObservedEvent): void {
    switch (event.type) {
      case "turn_completed":
        this.#turns.inc({ state: event.data.state });
        return;
      case "input": {
        // A receipt is published at each step (pending, delivered to a running turn, that turn's
        // end): each input counts once per outcome.
        const { delivery, turn } = event.data.input;
        if (delivery === "pending") this.#inputs.inc({ outcome: "admitted" });
        else if (delivery === "cancelled") this.#inputs.inc({ outcome: "cancelled" });
        else if (turn?.state === "running") this.#inputs.inc({ outcome: "delivered" });
        return;
      }
      case "tool":
        if (event.data.result !== null)
          this.#tools.inc({ tool: event.data.name, outcome: event.data.is_error ? "error" : "ok" });
        return;
      case "usage": {
        const { model } = event.data;
        this.#requests.inc({ model });
        this.#tokens.inc({ model, kind: "prompt" }, event.data.prompt_tokens);
        this.#tokens.inc({ model, kind: "cached_prompt" }, event.data.cached_prompt_tokens);
        this.#tokens.inc({ model, kind: "completion" }, event.data.completion_tokens);
        return;
      }
      case "retry":
        this.#retries.inc();
        return;
      case "approval_resolved":
        this.#approvals.inc({ decision: event.data.decision });
        return;
      case "compaction_completed":
        this.#compactions.inc({ result: "completed" });
        return;
      case "compaction_failed":
        this.#compactions.inc({ result: "failed" });
        return;
      default:
        return;
    }
  }

  #scraped(sources: MetricSources): void {
    const registers = [this.registry];
    const gauge = <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[],
      read: (set: (value: number, labels?: Partial<Record<L, string>>) => void) => void,
    ) =>
      new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          read((value, labels) => (labels === undefined ? this.set(value) : this.set(labels, value)));
        },
      });
    gauge("skein_sessions", "Loaded sessions, by state (loaded, running, waiting)", ["state"], (set) => {
      const census = sources.census();
      for (const state of ["loaded", "running", "waiting"] as const) set(census[state], { state });
    });
    gauge("skein_sse_watchers", "Clients following a session's stream", [], (set) =>
      set(sources.census().watchers),
    );
    // Totals something else counts since start: counters set from it when scraped.
    const total = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    total(
      "skein_commit_transactions_total",
      "Group-commit transactions",
      () => sources.commitStats().transactions,
    );
    total(
      "skein_commit_writes_total",
      "Writes committed through the group commit",
      () => sources.commitStats().requests,
    );
    total(
      "skein_fsyncs_total",
      "fsyncs the daemon ran itself (SQLite)",
      () => sources.commitStats().fsyncs ?? 0,
    );
    gauge("skein_mcp_instances", "MCP server instances, by server and state", ["server", "state"], (set) => {
      const counts = new Map<string, number>();
      for (const server of sources.mcp().servers)
        for (const instance of server.instances) {
          const key = `${server.name}\u0000${instance.state}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      for (const [key, count] of counts) {
        const [server, state] = key.split("\u0000") as [string, string];
        set(count, { server, state });
      }
    });
    const node = sources.node;
    if (node === undefined) return;
    gauge("skein_leases_held", "Session leases this node holds", [], (set) => set(node().held));
    gauge(
      "skein_lease_takeovers",
      "Sessions this node took over from nodes that went away, since start",
      [],
      (set) => set(node().takeovers),
    );
  }
}

type ObservedEvent = {
  [K in keyof SessionEventData]: { type: K; data: SessionEventData[K] };
}[keyof SessionEventData];
