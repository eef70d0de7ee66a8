/**
 * `tsx bench/profile-daemon.ts <stream|turns> <dir>`: runs one daemon load under `node --cpu-prof`
 * (the profile is written to <dir> when the daemon exits) and prints the daemon's CPU time per
 * unit of work. Not a suite of `npm run bench`: a tool for finding where the time goes.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { deltas, text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";

const [mode = "turns", dir = "/tmp/skein-profile"] = process.argv.slice(2);

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Follow a session's stream; `completed()` resolves at the next `turn_completed`. */
function follow(
  app: DaemonHarness,
  sessionId: string,
): Promise<{ completed(): Promise<void>; close(): void }> {
  return new Promise((attached, failed) => {
    let waiting: (() => void) | null = null;
    const req = request(
      {
        host: "127.0.0.1",
        port: app.port,
        path: `/sessions/${sessionId}?tail=0`,
        headers: {
          host: `127.0.0.1:${app.port}`,
          authorization: `Bearer ${app.token}`,
          accept: "text/event-stream",
        },
      },
      (res) => {
        res.setEncoding("latin1");
        res.on("data", (chunk: string) => {
          if (chunk.includes('"type":"turn_completed"')) waiting?.();
        });
        attached({
          completed: () =>
            new Promise<void>((done) => {
              waiting = done;
            }),
          close: () => req.destroy(),
        });
      },
    );
    req.on("error", failed);
    req.end();
  });
}

// The harness passes SKEIN_NODE_FLAGS of this process to the daemon's node.
if (dir !== "none") process.env.SKEIN_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${dir}`;
const provider = await FakeProvider.start();
const app = await DaemonHarness.start({
  providers: {
    bench: { protocol: "chat_completions", baseUrl: provider.baseUrlWith("v1"), apiKey: "k", model: "m" },
  },
  env: { SKEIN_LOG_LEVEL: "warn" },
});
try {
  const session = await app.createSession();
  if (mode === "stream") {
    provider.script = () => deltas(100_000, () => "x");
    const before = cpuMs(app.pid);
    const start = performance.now();
    await app.prompt(session, "stream");
    await app.idle(session, 120_000);
    console.log(
      `stream: ${(performance.now() - start).toFixed(0)} ms wall, ${cpuMs(app.pid) - before} ms CPU`,
    );
  } else {
    provider.script = () => text(["hello", " world"]);
    const turns = Number(process.env.TURNS ?? 300);
    const watcher = await follow(app, session);
    const turn = async (i: number) => {
      const completed = watcher.completed();
      await app.prompt(session, `turn ${i}`);
      await completed;
    };
    for (let i = 0; i < 20; i++) await turn(i);
    const before = cpuMs(app.pid);
    const start = performance.now();
    for (let i = 0; i < turns; i++) await turn(i);
    const cpu = cpuMs(app.pid) - before;
    watcher.close();
    console.log(
      `turns: ${((performance.now() - start) / turns).toFixed(2)} ms wall/turn, ${(cpu / turns).toFixed(2)} ms CPU/turn`,
    );
  }
  console.log(`daemon exited with ${await app.shutdown(10_000)}`);
} finally {
  await app.close();
  await provider.close();
}
