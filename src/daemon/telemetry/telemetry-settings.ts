/**
 * Whether and how the daemon exports traces, read from the standard OpenTelemetry environment
 * variables. Tracing is off unless the environment asks for it: an OTLP endpoint is named, or
 * `OTEL_TRACES_EXPORTER` names an exporter; `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`
 * turn it off whatever else is set.
 *
 * Boundary rule: pure (reads the environment object it is given); the SDK is started elsewhere
 * (tracing.ts), so a test reads every setting without starting anything.
 */

/** Where spans (or metrics) go: OTLP over HTTP (JSON or protobuf), or the daemon's standard output. */
type SpanExport = "otlp-json" | "otlp-protobuf" | "console";

/** Which traces are kept (the `OTEL_TRACES_SAMPLER` values the daemon understands). */
export type SamplerSetting =
  | { kind: "always_on" }
  | { kind: "always_off" }
  | { kind: "traceidratio"; ratio: number }
  | { kind: "parentbased_always_on" }
  | { kind: "parentbased_always_off" }
  | { kind: "parentbased_traceidratio"; ratio: number };

/** The batch span processor's tuning (`OTEL_BSP_*`); absent fields take the SDK's defaults. */
interface BatchSettings {
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
}

export interface TelemetrySettings {
  exports: SpanExport[];
  sampler: SamplerSetting;
  batch: BatchSettings;
}

/** The `OTEL_BSP_*` variables and the setting each sets. */
const batchVariables: readonly [string, keyof BatchSettings][] = [
  ["OTEL_BSP_SCHEDULE_DELAY", "scheduledDelayMillis"],
  ["OTEL_BSP_EXPORT_TIMEOUT", "exportTimeoutMillis"],
  ["OTEL_BSP_MAX_QUEUE_SIZE", "maxQueueSize"],
  ["OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "maxExportBatchSize"],
];

/** The settings (null: tracing off) and what was set but not understood, to be logged. */
export interface TelemetryReading {
  settings: TelemetrySettings | null;
  warnings: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** Read the tracing settings from `env` (the daemon's environment). */
export function telemetrySettingsOf(env: Env): TelemetryReading {
  const warnings: string[] = [];
  const exports = exportsOf(env, "TRACES", warnings);
  if (exports.length === 0) return { settings: null, warnings };
  const settings = { exports, sampler: samplerOf(env, warnings), batch: batchOf(env, warnings) };
  return { settings, warnings };
}

/** How the daemon's metrics are pushed over OTLP besides `GET /metrics`. */
export interface MetricsExportSettings {
  exports: SpanExport[];
  /** OTEL_METRIC_EXPORT_INTERVAL: how often (ms; default 60000). */
  intervalMillis: number;
  /** OTEL_METRIC_EXPORT_TIMEOUT: how long one export may take (ms; default 30000, at most the interval). */
  timeoutMillis: number;
}

/** Read the metrics export settings from `env`; null settings: metrics are only scraped. */
export function metricsExportSettingsOf(env: Env): {
  settings: MetricsExportSettings | null;
  warnings: string[];
} {
  const warnings: string[] = [];
  const exports = exportsOf(env, "METRICS", warnings);
  if (exports.length === 0) return { settings: null, warnings };
  const intervalMillis = wholeOf(env, "OTEL_METRIC_EXPORT_INTERVAL", warnings) ?? 60_000;
  // The SDK refuses a timeout longer than the interval.
  const timeoutMillis = Math.min(
    wholeOf(env, "OTEL_METRIC_EXPORT_TIMEOUT", warnings) ?? 30_000,
    intervalMillis,
  );
  return { settings: { exports, intervalMillis, timeoutMillis }, warnings };
}

/**
 * Where one signal goes: `OTEL_<SIGNAL>_EXPORTER`, or OTLP when an endpoint is named (unset
 * and no endpoint: nowhere, though the SDK's own default would send to localhost:4318 unasked).
 */
function exportsOf(env: Env, signal: "TRACES" | "METRICS", warnings: string[]): SpanExport[] {
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return [];
  const named = listOf(value(env, `OTEL_${signal}_EXPORTER`));
  const endpoint =
    value(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`) ?? value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const exporters = named ?? (endpoint === undefined ? [] : ["otlp"]);
  if (exporters.includes("none")) return [];
  const exports: SpanExport[] = [];
  for (const exporter of exporters) {
    if (exporter === "console") exports.push("console");
    else if (exporter === "otlp") {
      const chosen = otlpExport(env, signal, warnings);
      if (chosen !== null) exports.push(chosen);
    } else if (exporter === "prometheus" && signal === "METRICS")
      warnings.push(
        'OTEL_METRICS_EXPORTER: "prometheus": scrape GET /metrics, or the port SKEIN_METRICS_PORT opens',
      );
    else warnings.push(`OTEL_${signal}_EXPORTER: "${exporter}" is not supported (use otlp, console or none)`);
  }
  return [...new Set(exports)];
}

/** A positive whole number from `name`; undefined when unset or not one (then warned). */
function wholeOf(env: Env, name: string, warnings: string[]): number | undefined {
  const text = value(env, name);
  if (text === undefined) return undefined;
  const number = Number(text);
  if (Number.isSafeInteger(number) && number > 0) return number;
  warnings.push(`${name}: "${text}" is not a positive whole number; the default is used`);
  return undefined;
}

function batchOf(env: Env, warnings: string[]): BatchSettings {
  const batch: BatchSettings = {};
  for (const [name, field] of batchVariables) {
    const number = wholeOf(env, name, warnings);
    if (number !== undefined) batch[field] = number;
  }
  return batch;
}

function otlpExport(env: Env, signal: "TRACES" | "METRICS", warnings: string[]): SpanExport | null {
  const protocol =
    value(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ??
    value(env, "OTEL_EXPORTER_OTLP_PROTOCOL") ??
    "http/protobuf";
  switch (protocol) {
    case "http/protobuf":
      return "otlp-protobuf";
    case "http/json":
      return "otlp-json";
    default:
      warnings.push(
        `OTEL_EXPORTER_OTLP_PROTOCOL: "${protocol}" is not supported (use http/protobuf or http/json); no ${signal.toLowerCase()} are exported`,
      );
      return null;
  }
}

function samplerOf(env: Env, warnings: string[]): SamplerSetting {
  const name = value(env, "OTEL_TRACES_SAMPLER") ?? "parentbased_always_on";
  switch (name) {
    case "always_on":
    case "always_off":
    case "parentbased_always_on":
    case "parentbased_always_off":
      return { kind: name };
    case "traceidratio":
    case "parentbased_traceidratio":
      return { kind: name, ratio: ratioOf(value(env, "OTEL_TRACES_SAMPLER_ARG"), warnings) };
    default:
      warnings.push(
        `OTEL_TRACES_SAMPLER: "${name}" is not supported; every trace is kept (parentbased_always_on)`,
      );
      return { kind: "parentbased_always_on" };
  }
}

function ratioOf(text: string | undefined, warnings: string[]): number {
  if (text === undefined) return 1;
  const ratio = Number(text);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  warnings.push(`OTEL_TRACES_SAMPLER_ARG: "${text}" is not a ratio from 0 to 1; 1 is used`);
  return 1;
}

/** A variable's value, blank counting as unset (as the specification says). */
function value(env: Env, name: string): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === "" ? undefined : text;
}

function listOf(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(",")
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== "");
}
