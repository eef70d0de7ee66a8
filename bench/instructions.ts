/**
 * `tsx bench/instructions.ts [oneshot|turn|both|floor]`: machine instructions the daemon executes per
 * one-shot session (`skein run "hi"` in a new session) and per plain turn on an existing
 * session, counted by valgrind's callgrind over every thread of the daemon (V8's compiler and
 * GC threads and libuv's pool included); `floor`: the same per plain turn of the Node.js floor
 * of a plain turn (bench/turn-floor.ts), its requests made as long as a daemon's (whose system
 * prompt and tools a daemon run without valgrind gives first). Counts do not depend on what else the machine is
 * doing, so two builds can be compared on a loaded machine where CPU time cannot. Not a suite
 * of `npm run bench`: a tool for before/after work (the daemon runs ~50× slower under valgrind).
 *
 * Sizes: WARMUP (units run first and not counted, default 20), COUNT (units counted, default
 * 20). SKEIN_PROFILE_BIN names another checkout's built `bin/skein.js`. CALLGRIND_OUT=<dir>
 * keeps the measured phase's callgrind file there (for `callgrind_annotate`). SKEIN_V8_FLAGS is
 * passed on to the daemon (its V8 flags instead of its defaults; `none`: V8's own), and
 * SKEIN_NODE_FLAGS goes on the daemon's node command line (flags that must be set at start).
 */

import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { callgrindControl, callgrindLauncher, lastDumpTotal } from "./callgrind.js";
import { runOneShot } from "./daemon-oneshot.js";
import { daemonEnv, type Endpoint, follow, followedTurn, profiles } from "./daemon-support.js";
import { requestTemplateOf, startTurnFloor } from "./turn-floor.js";

const mode = process.argv[2] ?? "both";
const warmup = Number(process.env.WARMUP ?? 20);
const count = Number(process.env.COUNT ?? 20);
const outDir = process.env.CALLGRIND_OUT ?? mkdtempSync(join(tmpdir(), "skein-callgrind-"));
// valgrind cannot write into a folder that does not exist (the daemon then fails to start).
mkdirSync(outDir, { recursive: true });

/** Wait until the daemon's timers after a unit have run, so they are counted with it. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1500));

/** Instructions per unit over `count` runs of `unit` after `warmup` uncounted ones. */
async function perUnit(pid: number, unit: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < warmup; i++) await unit(i);
  await settle();
  callgrindControl(pid, "--zero");
  for (let i = 0; i < count; i++) await unit(warmup + i);
  await settle();
  callgrindControl(pid, "--dump");
  return lastDumpTotal(outDir, pid) / count;
}

/** Instructions per plain turn on a new session of `target`. */
async function perTurn(
  target: Endpoint & { pid: number; createSession(): Promise<string> },
): Promise<number> {
  const session = await target.createSession();
  const follower = await follow(target, session);
  const instructions = await perUnit(target.pid, async (i) => {
    await followedTurn(target, session, follower, `turn ${i}`);
  });
  follower.close();
  return instructions;
}

const valgrind = callgrindLauncher(outDir);
const millions = (n: number): string => `${(n / 1e6).toFixed(2)} M`;
const provider = await FakeProvider.start();
provider.script = () => text(["Hello", " there."]);
if (mode === "floor") {
  // A daemon's request, for the system prompt and tools the floor sends (the daemon not under valgrind).
  const daemon = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
  });
  try {
    const session = await daemon.createSession();
    const follower = await follow(daemon, session);
    await followedTurn(daemon, session, follower, "template");
    follower.close();
  } finally {
    await daemon.close();
  }
  const floor = await startTurnFloor(provider, requestTemplateOf(provider.requests.at(-1)!), valgrind);
  try {
    console.log(
      `floor turn: ${millions(await perTurn(floor))} instructions per plain turn (${count} after ${warmup})`,
    );
    console.log(`callgrind files: ${outDir}`);
  } finally {
    await floor.close();
    await provider.close();
  }
  process.exit(0);
}
const app = await DaemonHarness.start({
  providers: profiles(provider),
  env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
  launcher: valgrind,
  readyTimeoutMs: 300_000,
  ...(process.env.SKEIN_PROFILE_BIN === undefined ? {} : { skeinBin: process.env.SKEIN_PROFILE_BIN }),
});
try {
  if (mode === "oneshot" || mode === "both") {
    const perSession = await perUnit(app.pid, () => runOneShot(app));
    console.log(`oneshot: ${millions(perSession)} instructions per session (${count} after ${warmup})`);
  }
  if (mode === "turn" || mode === "both") {
    console.log(
      `turn: ${millions(await perTurn(app))} instructions per plain turn (${count} after ${warmup})`,
    );
  }
  console.log(`callgrind files: ${outDir}`);
} finally {
  await app.close();
  await provider.close();
}
