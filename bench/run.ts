/**
 * `npm run bench [-- suite...]`: runs the named benchmark suites (all when none is named).
 * Each suite is `bench/<name>.ts` exporting `run(): Promise<void>` that calls `writeReport`.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const suites = [
  "log",
  "providers",
  "daemon",
  "cli",
  "mcp",
  "approvals",
  "compaction",
  "web",
  "chat",
  "cluster",
  "cluster-faults",
  "tools",
  "backup",
  "telemetry",
  "long-session",
  "notifications",
  "schedules",
  "idle",
  "opencode",
];
const here = dirname(fileURLToPath(import.meta.url));
const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !suites.includes(name));
if (unknown.length > 0) {
  console.error(`unknown bench suite(s): ${unknown.join(", ")}; known: ${suites.join(", ")}`);
  process.exit(2);
}
// SKEIN_BENCH_PARTS names parts of the daemon suite (the only suite with parts): without a
// suite named, it runs just that suite rather than every suite in full.
const partsOnly = process.env.SKEIN_BENCH_PARTS !== undefined && process.env.SKEIN_BENCH_PARTS !== "";
for (const name of requested.length > 0 ? requested : partsOnly ? ["daemon"] : suites) {
  const file = join(here, `${name}.ts`);
  if (!existsSync(file)) {
    console.log(`(suite ${name}: not written yet)`);
    continue;
  }
  const suite = (await import(pathToFileURL(file).href)) as { run: () => Promise<void> };
  await suite.run();
}
