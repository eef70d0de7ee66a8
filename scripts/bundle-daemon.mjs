// Bundles the compiled daemon (dist/daemon/daemon.js) and its dependencies into one file,
// dist/daemon.bundle.cjs, and makes its V8 code cache beside it. `skein daemon run` loads it
// instead of ~1,000 small modules: most of the daemon's start-up time is module loading (see
// bench/daemon.ts, cold_start_ms), and with the cache V8 no longer parses the whole bundle at
// each start (src/cli/daemon-bundle.ts says how, and why the bundle is CommonJS).
// better-sqlite3 stays external (a native addon); so does the OpenTelemetry SDK, loaded only
// when traces are exported (a daemon that exports none never parses it), and turndown (HTML to
// Markdown for web_fetch, with its DOM), loaded at the first page fetched. undici is taken in
// part (scripts/daemon-bundle-undici.mjs says why).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { setFlagsFromString } from "node:v8";
import { build } from "esbuild";

const bundle = "dist/daemon.bundle.cjs";

await build({
  entryPoints: ["dist/daemon/daemon.js"],
  outfile: bundle,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  alias: { undici: "./scripts/daemon-bundle-undici.mjs" },
  // The sources' `import.meta.url` is the bundle's own URL, a parameter of its wrapper.
  define: { "import.meta.url": "__skeinBundleUrl" },
  // `import()` of an external becomes a `require`: the bundle runs as a script, which has no
  // module loader of its own for `import()`.
  supported: { "dynamic-import": false },
  external: [
    "better-sqlite3",
    "turndown",
    "@opentelemetry/sdk-trace",
    "@opentelemetry/resources",
    "@opentelemetry/core",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/exporter-trace-otlp-proto",
    "@opentelemetry/sdk-metrics",
    "@opentelemetry/exporter-metrics-otlp-http",
    "@opentelemetry/exporter-metrics-otlp-proto",
  ],
  legalComments: "none",
  charset: "ascii",
  logLevel: "warning",
});

// V8 keeps a script's source in one byte per character only when every character is Latin-1;
// one "§" or "’" in a dependency's comment doubles the bundle in memory and makes the first
// stack trace through it re-scan the whole text. `charset: "ascii"` escapes every string,
// template, regular expression and identifier, so what is left outside ASCII is in comments.
const text = readFileSync(bundle, "utf8").replace(/[\u0080-\uffff]/g, "?");
// The bundle's id (its content's SHA-256) on its last line: its code cache carries the same id.
const id = createHash("sha256").update(text).digest("hex").slice(0, 16);
writeFileSync(bundle, `${text}// skein-bundle ${id}\n`);

// The code cache, made under the V8 flags the daemon sets before it loads the bundle (V8 refuses
// a cache made under others). Caches of earlier bundles go.
const { makeDaemonCodeCache } = await import("../dist/cli/daemon-bundle.js");
const { DEFAULT_DAEMON_V8_FLAGS } = await import("../dist/cli/daemon-v8-flags.js");
for (const flag of DEFAULT_DAEMON_V8_FLAGS.atLoad) setFlagsFromString(flag);
for (const name of readdirSync("dist")) {
  if (name.startsWith("daemon.bundle.") && name.endsWith(".code-cache")) rmSync(`dist/${name}`);
}
rmSync("dist/daemon.bundle.js", { force: true });
const made = makeDaemonCodeCache(resolve(bundle));
console.log(
  `${bundle}: ${(text.length / 1e6).toFixed(1)} MB; code cache ${made.file}: ${(made.bytes / 1e6).toFixed(1)} MB`,
);
// Loading the bundle started what its modules start when loaded (timers, a logger's worker).
process.exit(0);
