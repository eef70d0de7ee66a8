import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { telemetrySettingsOf } from "../../../src/daemon/telemetry/telemetry-settings.js";

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };

describe("the tracing settings read from the OpenTelemetry variables", () => {
  it("are off when nothing is set, so an unconfigured daemon sends nothing anywhere", () => {
    expect(telemetrySettingsOf({})).toEqual({ settings: null, warnings: [] });
  });

  it("export OTLP over HTTP with protobuf once an endpoint is named, keeping every trace", () => {
    expect(telemetrySettingsOf(endpoint).settings).toEqual({
      exports: ["otlp-protobuf"],
      sampler: { kind: "parentbased_always_on" },
      batch: {},
    });
    expect(
      telemetrySettingsOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }).settings
        ?.exports,
    ).toEqual(["otlp-protobuf"]);
  });

  it("take the traces protocol over the general one, and http/json", () => {
    const env = {
      ...endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
    };
    expect(telemetrySettingsOf(env).settings?.exports).toEqual(["otlp-json"]);
  });

  it("are off for OTEL_SDK_DISABLED=true or the exporter none, whatever else is set", () => {
    expect(telemetrySettingsOf({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" }).settings).toBeNull();
    expect(telemetrySettingsOf({ ...endpoint, OTEL_TRACES_EXPORTER: "otlp,none" }).settings).toBeNull();
  });

  it("name the console exporter without an endpoint", () => {
    expect(telemetrySettingsOf({ OTEL_TRACES_EXPORTER: "console" }).settings?.exports).toEqual(["console"]);
  });

  it("warn about what they cannot do instead of failing the daemon's start", () => {
    const grpc = telemetrySettingsOf({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
    expect(grpc.settings).toBeNull();
    expect(grpc.warnings[0]).toMatch(/grpc.*not supported/);
    const zipkin = telemetrySettingsOf({ OTEL_TRACES_EXPORTER: "zipkin,console" });
    expect(zipkin.settings?.exports).toEqual(["console"]);
    expect(zipkin.warnings[0]).toMatch(/zipkin/);
  });

  it("read the sampler and its ratio, and the batch processor's tuning", () => {
    const env = {
      ...endpoint,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_BSP_MAX_QUEUE_SIZE: "-4",
    };
    const { settings, warnings } = telemetrySettingsOf(env);
    expect(settings?.sampler).toEqual({ kind: "parentbased_traceidratio", ratio: 0.25 });
    expect(settings?.batch).toEqual({ scheduledDelayMillis: 200 });
    expect(warnings).toEqual([expect.stringContaining("OTEL_BSP_MAX_QUEUE_SIZE")]);
    expect(
      telemetrySettingsOf({ ...endpoint, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" })
        .settings?.sampler,
    ).toEqual({ kind: "traceidratio", ratio: 1 });
  });

  it("never throw, whatever the variables hold, and stay off while the SDK is disabled", () => {
    const names = [
      "OTEL_SDK_DISABLED",
      "OTEL_TRACES_EXPORTER",
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_PROTOCOL",
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      "OTEL_TRACES_SAMPLER",
      "OTEL_TRACES_SAMPLER_ARG",
      "OTEL_BSP_SCHEDULE_DELAY",
    ];
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), fc.string()), (env) => {
        const reading = telemetrySettingsOf(env);
        if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") expect(reading.settings).toBeNull();
        if (reading.settings !== null) expect(reading.settings.exports.length).toBeGreaterThan(0);
      }),
    );
  });
});
