/**
 * CLI benchmark: `cli_run_ms`, the wall time of `node bin/skein.js run "hi"` against a running
 * daemon and a fake provider that answers at once, against `node -e ""` (the cost of starting
 * Node at all). Both are started here; runs alternate so drift hits both sides alike.
 * Target: under 300 ms, so the CLI feels instant.
 */
import { spawn } from "node:child_process";
import { DaemonHarness, skeinBin } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { figure, writeReport } from "./report.js";

const RUNS = 40;
const WARMUP = 3;

function timeProcess(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** Run the suite and write bench/results/cli.json. */
export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  provider.script = () => text("hello");
  const daemon = await DaemonHarness.start({
    providers: {
      fake: {
        protocol: "chat_completions",
        baseUrl: `${provider.baseUrl}/v1`,
        model: "fake-model",
        apiKey: "bench",
      },
    },
  });
  try {
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: daemon.root,
      SKEIN_HOME: daemon.home,
      SKEIN_NO_AUTOSTART: "1",
    };
    const cli = [skeinBin, "run", "hi"];
    const baseline = ["-e", ""];
    for (let i = 0; i < WARMUP; i++) {
      await timeProcess(cli, env, daemon.workspace);
      await timeProcess(baseline, env, daemon.workspace);
    }
    const cliTimes: number[] = [];
    const nodeTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      cliTimes.push(await timeProcess(cli, env, daemon.workspace));
      nodeTimes.push(await timeProcess(baseline, env, daemon.workspace));
    }
    const p50 = percentile(cliTimes, 50);
    const p90 = percentile(cliTimes, 90);
    const base50 = percentile(nodeTimes, 50);
    const base90 = percentile(nodeTimes, 90);
    writeReport("cli", [
      figure(
        "cli_run_ms",
        p50,
        "ms",
        base50,
        `median of ${RUNS} runs of \`node bin/skein.js run "hi"\` (new session, one turn, fake provider answering at once, daemon already running); ` +
          `p50 ${p50.toFixed(1)} ms, p90 ${p90.toFixed(1)} ms; baseline \`node -e ""\` p50 ${base50.toFixed(1)} ms, p90 ${base90.toFixed(1)} ms; target < 300 ms`,
      ),
    ]);
  } finally {
    await daemon.close();
    await provider.close();
  }
}
