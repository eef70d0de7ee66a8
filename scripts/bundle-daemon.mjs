// Bundles the compiled daemon (dist/daemon/daemon.js) and its dependencies into one file,
// dist/daemon.bundle.js. `skein daemon run` loads it instead of ~1,000 small modules: most of
// the daemon's start-up time is module loading (see bench/daemon.ts, cold_start_ms).
// better-sqlite3 stays external (a native addon); so does the OpenTelemetry SDK, loaded only
// when traces are exported (a daemon that exports none never parses it). CommonJS dependencies
// get a `require`.
import { build } from "esbuild";

await build({
  entryPoints: ["dist/daemon/daemon.js"],
  outfile: "dist/daemon.bundle.js",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: [
    "better-sqlite3",
    "@opentelemetry/sdk-trace",
    "@opentelemetry/resources",
    "@opentelemetry/core",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/exporter-trace-otlp-proto",
    "@opentelemetry/sdk-metrics",
    "@opentelemetry/exporter-metrics-otlp-http",
    "@opentelemetry/exporter-metrics-otlp-proto",
  ],
  banner: {
    js: "import { createRequire as __skeinCreateRequire } from 'node:module'; const require = __skeinCreateRequire(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
});
