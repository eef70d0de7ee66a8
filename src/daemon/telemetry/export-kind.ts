/** Making the exporter a setting names, for either signal, loading only the package it needs. */
import type { SpanExport } from "./telemetry-settings.js";

/** How to make each kind of exporter of one signal. */
export interface ExporterMakers<T> {
  console(): T;
  otlpJson(): Promise<T>;
  otlpProtobuf(): Promise<T>;
}

/** The exporter of `kind`. */
export async function exporterOf<T>(kind: SpanExport, make: ExporterMakers<T>): Promise<T> {
  switch (kind) {
    case "console":
      return make.console();
    case "otlp-json":
      return make.otlpJson();
    case "otlp-protobuf":
      return make.otlpProtobuf();
    default: {
      const unknown: never = kind;
      throw new Error(`unknown export ${String(unknown)}`);
    }
  }
}
