/**
 * The daemon's metrics pushed over OTLP (or printed), as the standard variables ask
 * (telemetry-settings.ts): every `OTEL_METRIC_EXPORT_INTERVAL` the registry `GET /metrics`
 * shows is read through prometheus-metric-producer.ts and exported, so both views show the
 * same counts. The SDK and its exporters are loaded only when an export is configured.
 *
 * Boundary rule: starts and stops the metrics SDK; what is measured stays the registry's.
 */
import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import type { Registry } from "prom-client";
import { prometheusMetricProducer } from "./prometheus-metric-producer.js";
import { telemetryResource } from "./telemetry-resource.js";
import type { MetricsExportSettings } from "./telemetry-settings.js";

/** A running export: stopped (after one last export) with the daemon. */
export interface MetricsExport {
  shutdown(): Promise<void>;
}

/** Export `registry` as `settings` say; `version` is the daemon's, for the resource. */
export async function startMetricsExport(
  settings: MetricsExportSettings,
  registry: Registry,
  version: string,
): Promise<MetricsExport> {
  const sdk = await import("@opentelemetry/sdk-metrics");
  const started = Date.now();
  const startTime: [number, number] = [Math.floor(started / 1000), (started % 1000) * 1_000_000];
  const readers = await Promise.all(
    settings.exports.map(
      async (kind) =>
        new sdk.PeriodicExportingMetricReader({
          exporter: await exporterOf(kind, sdk),
          exportIntervalMillis: settings.intervalMillis,
          exportTimeoutMillis: settings.timeoutMillis,
          metricProducers: [prometheusMetricProducer(registry, startTime)],
        }),
    ),
  );
  const provider = new sdk.MeterProvider({ resource: await telemetryResource(version), readers });
  return {
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
    },
  };
}

type Sdk = typeof import("@opentelemetry/sdk-metrics");

async function exporterOf(
  kind: MetricsExportSettings["exports"][number],
  sdk: Sdk,
): Promise<PushMetricExporter> {
  switch (kind) {
    case "console":
      return new sdk.ConsoleMetricExporter();
    case "otlp-json":
      return new (await import("@opentelemetry/exporter-metrics-otlp-http")).OTLPMetricExporter();
    case "otlp-protobuf":
      return new (await import("@opentelemetry/exporter-metrics-otlp-proto")).OTLPMetricExporter();
    default: {
      const unknown: never = kind;
      throw new Error(`unknown metrics export ${String(unknown)}`);
    }
  }
}
