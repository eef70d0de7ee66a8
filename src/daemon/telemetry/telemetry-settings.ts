/**
 * Whether and how the daemon exports traces, read from the standard OpenTelemetry environment
 * variables. Tracing is off unless the environment asks for it: an OTLP endpoint is named, or
 * `OTEL_TRACES_EXPORTER` names an exporter; `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`
 * turn it off whatever else is set.
 *
 * Boundary rule: pure (reads the environment object it is given); the SDK is started elsewhere
 * (tracing.ts), so a test reads every setting without starting anything.
 */

/** Where spans go: OTLP over HTTP (JSON or protobuf), or the daemon's standard output. */
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
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return { settings: null, warnings };
  const named = listOf(value(env, "OTEL_TRACES_EXPORTER"));
  const endpoint =
    value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  // Unset: on only when an endpoint says where to send (the SDK's own default would send to
  // localhost:4318 unasked).
  const exporters = named ?? (endpoint === undefined ? [] : ["otlp"]);
  if (exporters.includes("none")) return { settings: null, warnings };
  const exports: SpanExport[] = [];
  for (const exporter of exporters) {
    if (exporter === "console") exports.push("console");
    else if (exporter === "otlp") {
      const chosen = otlpExport(env, warnings);
      if (chosen !== null) exports.push(chosen);
    } else warnings.push(`OTEL_TRACES_EXPORTER: "${exporter}" is not supported (use otlp, console or none)`);
  }
  if (exports.length === 0) return { settings: null, warnings };
  const settings = {
    exports: [...new Set(exports)],
    sampler: samplerOf(env, warnings),
    batch: batchOf(env, warnings),
  };
  return { settings, warnings };
}

function batchOf(env: Env, warnings: string[]): BatchSettings {
  const batch: BatchSettings = {};
  for (const [name, field] of batchVariables) {
    const text = value(env, name);
    if (text === undefined) continue;
    const number = Number(text);
    if (Number.isSafeInteger(number) && number > 0) batch[field] = number;
    else warnings.push(`${name}: "${text}" is not a positive whole number; the default is used`);
  }
  return batch;
}

function otlpExport(env: Env, warnings: string[]): SpanExport | null {
  const protocol =
    value(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ??
    value(env, "OTEL_EXPORTER_OTLP_PROTOCOL") ??
    "http/protobuf";
  switch (protocol) {
    case "http/protobuf":
      return "otlp-protobuf";
    case "http/json":
      return "otlp-json";
    default:
      warnings.push(
        `OTEL_EXPORTER_OTLP_PROTOCOL: "${protocol}" is not supported (use http/protobuf or http/json); no traces are exported`,
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
