// Bundles the compiled daemon (dist/daemon/daemon.js) and its dependencies into one file,
// dist/daemon.bundle.js. `skein daemon run` loads it instead of ~1,000 small modules: most of
// the daemon's start-up time is module loading (see bench/daemon.ts, cold_start_ms).
// better-sqlite3 stays external (a native addon); so does the OpenTelemetry SDK, loaded only
// when traces are exported (a daemon that exports none never parses it). CommonJS dependencies
// get a `require`.
import { readFileSync, writeFileSync } from "node:fs";
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
  charset: "ascii",
  logLevel: "warning",
});

// V8 keeps a script's source in one byte per character only when every character is Latin-1;
// one "§" or "’" in a dependency's comment doubles the 6 MB bundle in memory and makes the first
// stack trace through it re-scan the whole text. `charset: "ascii"` escapes every string,
// template, regular expression and identifier, so what is left outside ASCII is in comments.
const bundle = "dist/daemon.bundle.js";
writeFileSync(bundle, readFileSync(bundle, "utf8").replace(/[\u0080-\uffff]/g, "?"));
