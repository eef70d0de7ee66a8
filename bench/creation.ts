/**
 * `tsx bench/creation.ts [instructions|cpu] [plain|input|both]`: what creating a session costs
 * the daemon — `PUT /sessions/{id}` with `{"kind":"new","workspace":...}`, without (`plain`) or
 * with (`input`) a first input (whose turn, the fake provider answering a short text at once,
 * is then waited for). `instructions`: machine instructions per creation, counted by valgrind's
 * callgrind over every thread of the daemon (see bench/instructions.ts); `cpu`: daemon
 * utime+stime per creation, rounds alternated with the build of SKEIN_BENCH_COMPARE_BIN
 * (another checkout's built `bin/skein.js`) when set. Not a suite of `npm run bench`: a tool
 * for before/after work on session creation.
 *
 * Sizes: WARMUP (default 20), COUNT (default 20 under callgrind, 200 for cpu), ROUNDS (cpu, default 4).
 */

import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { callgrindControl, callgrindLauncher, lastDumpTotal } from "./callgrind.js";
import { cpuOf, daemonEnv, profiles } from "./daemon-support.js";

const measure = process.argv[2] ?? "instructions";
const which = process.argv[3] ?? "both";
const underValgrind = measure === "instructions";
const warmup = Number(process.env.WARMUP ?? 20);
const count = Number(process.env.COUNT ?? (underValgrind ? 20 : 200));
const rounds = Number(process.env.ROUNDS ?? 4);
const outDir = process.env.CALLGRIND_OUT ?? mkdtempSync(join(tmpdir(), "skein-callgrind-"));
mkdirSync(outDir, { recursive: true });

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Wait until the daemon's timers after a unit have run, so they are counted with it. */
const settle = (): Promise<void> => sleep(underValgrind ? 1500 : 300);

/**
 * One creation; with `input`, also its first turn: waited for without asking the daemon (whose
 * answers to polls would be counted too) until the provider has its request, then for a pause
 * long enough for the turn to end.
 */
async function create(app: DaemonHarness, provider: FakeProvider, input: boolean): Promise<void> {
  const id = uuidv7();
  const asked = provider.requests.length;
  const body = input
    ? { kind: "new", workspace: app.workspace, input: { id: uuidv7(), kind: "message", text: "hi" } }
    : { kind: "new", workspace: app.workspace };
  const response = await app.api(`/sessions/${id}`, {
    method: "PUT",
    headers: { "if-none-match": "*" },
    body,
  });
  if (response.status !== 201) throw new Error(`create: ${response.status} ${response.text}`);
  if (!input) return;
  while (provider.requests.length === asked) await sleep(underValgrind ? 50 : 2);
  await sleep(underValgrind ? 1000 : 40);
}

const valgrind = callgrindLauncher(outDir);

async function daemon(provider: FakeProvider, bin: string | undefined): Promise<DaemonHarness> {
  return DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
    ...(underValgrind ? { launcher: valgrind, readyTimeoutMs: 300_000 } : {}),
    ...(bin === undefined ? {} : { skeinBin: bin }),
  });
}

/** Per creation on one daemon: instructions (callgrind) or CPU ms. */
async function perCreation(provider: FakeProvider, input: boolean, bin?: string): Promise<number> {
  const app = await daemon(provider, bin);
  try {
    for (let i = 0; i < warmup; i++) await create(app, provider, input);
    await settle();
    if (underValgrind) callgrindControl(app.pid, "--zero");
    const before = cpuOf(app.pid).own;
    for (let i = 0; i < count; i++) await create(app, provider, input);
    await settle();
    if (!underValgrind) return (cpuOf(app.pid).own - before) / count;
    callgrindControl(app.pid, "--dump");
    return lastDumpTotal(outDir, app.pid) / count;
  } finally {
    await app.close();
  }
}

const provider = await FakeProvider.start();
provider.script = () => text(["Hello", " there."]);
try {
  const kinds = which === "both" ? [false, true] : [which === "input"];
  for (const input of kinds) {
    const label = input ? "creation with input (and its turn)" : "creation";
    if (underValgrind) {
      const n = await perCreation(provider, input, process.env.SKEIN_PROFILE_BIN);
      console.log(`${label}: ${(n / 1e6).toFixed(3)} M instructions (${count} after ${warmup})`);
      continue;
    }
    const other = process.env.SKEIN_BENCH_COMPARE_BIN;
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (other !== undefined && other !== "") theirs.push(await perCreation(provider, input, other));
      mine.push(await perCreation(provider, input));
    }
    const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
    const shown = (list: number[]) => list.map((v) => v.toFixed(2)).join(" ");
    console.log(`${label}: this build ${mean(mine).toFixed(3)} ms CPU [${shown(mine)}]`);
    if (theirs.length > 0)
      console.log(`${label}: compared ${mean(theirs).toFixed(3)} ms CPU [${shown(theirs)}]`);
  }
  if (underValgrind) console.log(`callgrind files: ${outDir}`);
} finally {
  await provider.close();
}
