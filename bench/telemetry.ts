/**
 * `npm run bench -- telemetry`: the daemon's CPU per turn with traces exported (OTLP/HTTP JSON to
 * a receiver in this process, every span kept) against the same daemon build with no
 * OpenTelemetry variables, in the same run, rounds interleaved so a noisy machine hits both
 * alike. Each turn calls one tool and answers, so a turn makes every kind of span but
 * compaction's (admission, turn, two model requests, tool, approval, commits).
 */

import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text, toolCalls } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { startOtlpReceiver } from "../test/support/otlp-receiver.js";
import { cpuMs, daemonEnv, profiles } from "./daemon-support.js";
import { figure, writeReport } from "./report.js";

const turnsPerRound = Number(process.env.SKEIN_BENCH_TELEMETRY_TURNS ?? 100);
const rounds = 3;

/** Daemon CPU (ms) over `turns` tool-calling turns on one session of `app`. */
async function cpuOfTurns(app: DaemonHarness, provider: FakeProvider, turns: number): Promise<number> {
  const session = await app.createSession();
  // Chat Completions: a request whose last message is a tool result gets the answer.
  provider.script = (request) =>
    (request.body as { messages?: { role: string }[] }).messages?.at(-1)?.role === "tool"
      ? text("done")
      : toolCalls([{ name: "list_files", args: { path: "." } }]);
  await app.turn(session, "warm up");
  const before = cpuMs(app.pid);
  for (let i = 0; i < turns; i++) await app.turn(session, `turn ${i}`);
  return cpuMs(app.pid) - before;
}

export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  const receiver = await startOtlpReceiver();
  const traced = {
    SKEIN_LOG_LEVEL: "warn",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  };
  const off = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
  });
  const on = await DaemonHarness.start({ providers: profiles(provider), env: daemonEnv(traced) });
  let offCpu = 0;
  let onCpu = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      offCpu += await cpuOfTurns(off, provider, turnsPerRound);
      onCpu += await cpuOfTurns(on, provider, turnsPerRound);
    }
    const turns = rounds * turnsPerRound;
    await receiver.waitFor(
      (spans) => spans.filter((span) => span.name === "invoke_agent skein").length >= turns,
    );
    const spansPerTurn = receiver.spans.length / (turns + rounds);
    writeReport("telemetry", [
      figure(
        "cpu_per_turn_ms_traced",
        onCpu / turns,
        "ms",
        offCpu / turns,
        `daemon utime+stime per tool-calling turn with every span exported over OTLP/HTTP JSON (${spansPerTurn.toFixed(1)} spans a turn) over ${turns} turns in ${rounds} interleaved rounds; baseline: the same turns on a daemon without OpenTelemetry variables (tracing off: no SDK loaded, no span made)`,
      ),
    ]);
  } finally {
    await off.close();
    await on.close();
    await receiver.close();
    await provider.close();
  }
}
