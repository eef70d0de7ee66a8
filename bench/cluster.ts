/**
 * `npm run bench -- cluster`: Skein on PostgreSQL and as a cluster of nodes, each figure with a
 * same-run baseline (see bench/report.ts):
 * - turns/s on one node, PostgreSQL vs SQLite (same fake provider, same load);
 * - delivery delay to 10 watchers on a non-owner node vs 10 on the owner;
 * - takeover time after SIGKILL of an owner (lease 3 s here), over 10 kills;
 * - 1,000 concurrent sessions over 3 nodes vs 1 node (both PostgreSQL): wall time, peak RSS.
 * Every node is a real daemon process (`bin/skein.js daemon run`); PostgreSQL is the local
 * server (127.0.0.1:5432, database `test`), one schema per scenario, dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { v7 as uuidv7 } from "uuid";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { deliver, deltas, hang, text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { createPgSchema, type PgSchema } from "../test/support/pg-schema.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";
import { readSseFrames } from "./sse-frames.js";

const now = (): number => performance.timeOrigin + performance.now();
const token = randomBytes(24).toString("hex");

/** Run every cluster figure. */
export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  const figures: Figure[] = [];
  try {
    figures.push(...(await turnThroughput(provider, 300)));
    figures.push(...(await crossNodeDelay(provider)));
    figures.push(...(await takeover(provider, 10, 3)));
    figures.push(...(await spread(provider, 1000)));
  } finally {
    await provider.close();
  }
  writeReport("cluster", figures);
}

function profiles(provider: FakeProvider) {
  return {
    bench: {
      protocol: "chat_completions" as const,
      baseUrl: provider.baseUrlWith("v1"),
      apiKey: "k",
      model: "m",
    },
  };
}

async function nodes(
  provider: FakeProvider,
  schema: PgSchema,
  count: number,
  env: Record<string, string> = {},
) {
  const started: DaemonHarness[] = [];
  for (let i = 0; i < count; i++) {
    started.push(
      await DaemonHarness.start({
        providers: profiles(provider),
        env: { SKEIN_DB: schema.url, SKEIN_TOKEN: token, SKEIN_LOG_LEVEL: "warn", ...env },
      }),
    );
  }
  return started;
}

async function completedTurns(schema: PgSchema): Promise<number> {
  const rows = await schema.query<{ n: string }>("SELECT count(*) AS n FROM turns WHERE state = 'completed'");
  return Number(rows[0]!.n);
}

/** `sessions` sessions on `apps` (round robin), one short turn each, all at once: wall ms. */
async function allTurns(
  apps: DaemonHarness[],
  sessions: number,
  done: () => Promise<boolean>,
): Promise<{ wall: number; ids: string[] }> {
  const ids: string[] = [];
  for (let i = 0; i < sessions; i += 50) {
    ids.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, sessions - i) }, (_, k) =>
          apps[(i + k) % apps.length]!.createSession(),
        ),
      )),
    );
  }
  const start = now();
  await Promise.all(ids.map((id, i) => apps[i % apps.length]!.prompt(id, "hi", uuidv7())));
  while (!(await done())) await sleep(50);
  return { wall: now() - start, ids };
}

// ---------------------------------------------------------------------------------------------

async function turnThroughput(provider: FakeProvider, sessions: number): Promise<Figure[]> {
  provider.script = () => text("ok");
  const sqlite = await DaemonHarness.start({
    providers: profiles(provider),
    env: { SKEIN_LOG_LEVEL: "warn" },
  });
  let sqliteWall: number;
  try {
    await allTurns([sqlite], 20, async () => true);
    sqliteWall = (
      await allTurns([sqlite], sessions, async () => {
        const rows = await sqlite.sql<{ n: number }>(
          "SELECT count(*) AS n FROM turns WHERE state = 'completed'",
        );
        return Number(rows[0]!.n) >= sessions + 20;
      })
    ).wall;
  } finally {
    await sqlite.close();
  }
  const schema = await createPgSchema("skein_bench");
  let pgWall: number;
  let commits = "";
  try {
    // At level info: the group-commit counts are on the daemon's "stopped" line.
    const [pg] = await nodes(provider, schema, 1, { SKEIN_LOG_LEVEL: "info" });
    try {
      await allTurns([pg!], 20, async () => true);
      pgWall = (await allTurns([pg!], sessions, async () => (await completedTurns(schema)) >= sessions + 20))
        .wall;
      await pg!.shutdown();
      const stopped = /"groupCommit":\{"transactions":(\d+),"requests":(\d+)\}/.exec(pg!.readLog());
      if (stopped !== null) commits = `; group commit: ${stopped[2]} writes in ${stopped[1]} transactions`;
    } finally {
      await pg!.close();
    }
  } finally {
    await schema.drop();
  }
  const pgRate = sessions / (pgWall / 1000);
  const sqliteRate = sessions / (sqliteWall / 1000);
  return [
    figure(
      "turns_per_s_postgres_one_node",
      pgRate,
      "turns/s",
      sqliteRate,
      `${sessions} sessions, one short turn each, all at once, one node; baseline: the same on SQLite; target ratio >= 0.5${commits}`,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------

const stamp = (): string => `|${now().toFixed(3)}`;

/** Follow a session's stream on `app`; `delays` collects provider-write → parse delays (ms). */
function watch(
  app: DaemonHarness,
  sessionId: string,
  delays: number[],
): Promise<{ done: Promise<void>; close(): void }> {
  return new Promise((attached, failed) => {
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: app.port,
        path: `/sessions/${sessionId}?tail=0`,
        headers: {
          host: `127.0.0.1:${app.port}`,
          authorization: `Bearer ${token}`,
          accept: "text/event-stream",
        },
      },
      (res) => {
        let first = true;
        readSseFrames(res, (_frame, data) => {
          if (first) {
            first = false;
            attached({ done, close: () => req.destroy() });
          }
          const receivedAt = now();
          const batch = JSON.parse(data) as {
            events: { type: string; data: { text?: string } }[];
          };
          for (const event of batch.events) {
            if (event.type === "text" && event.data.text !== undefined) {
              for (const part of event.data.text.split("|"))
                if (part !== "") delays.push(receivedAt - Number(part));
            } else if (event.type === "turn_completed") finish();
          }
        });
      },
    );
    req.on("error", failed);
    req.end();
  });
}

async function crossNodeDelay(provider: FakeProvider): Promise<Figure[]> {
  const schema = await createPgSchema("skein_bench");
  try {
    const [owner, other] = await nodes(provider, schema, 2);
    try {
      const measure = async (on: DaemonHarness): Promise<number[]> => {
        const session = await owner!.createSession();
        const samples: number[][] = Array.from({ length: 10 }, () => []);
        const watchers = [];
        for (const delays of samples) watchers.push(await watch(on, session, delays));
        provider.script = () => deliver(deltas(2_000, stamp), { delayMs: 1 });
        await owner!.prompt(session, "stream");
        await Promise.all(watchers.map((w) => w.done));
        for (const w of watchers) w.close();
        await owner!.idle(session);
        return samples.flat().sort((a, b) => a - b);
      };
      await measure(other!); // warm up both paths
      await measure(owner!);
      const same = await measure(owner!);
      const cross = await measure(other!);
      const note = "2000 deltas at 1/ms, provider write -> parse by each of 10 watchers";
      return [
        figure(
          "delivery_delay_p50_ms_10_watchers_other_node",
          quantile(cross, 0.5),
          "ms",
          quantile(same, 0.5),
          `${note}; baseline: 10 watchers on the owner`,
        ),
        figure(
          "delivery_delay_p99_ms_10_watchers_other_node",
          quantile(cross, 0.99),
          "ms",
          quantile(same, 0.99),
          `${note}; baseline: 10 watchers on the owner; target: added p99 <= 25 ms (added: ${(quantile(cross, 0.99) - quantile(same, 0.99)).toFixed(1)} ms)`,
        ),
      ];
    } finally {
      await other!.close();
      await owner!.close();
    }
  } finally {
    await schema.drop();
  }
}

// ---------------------------------------------------------------------------------------------

async function takeover(provider: FakeProvider, kills: number, leaseSeconds: number): Promise<Figure[]> {
  const schema = await createPgSchema("skein_bench");
  const times: number[] = [];
  try {
    const pair = await nodes(provider, schema, 2, { SKEIN_LEASE_SECONDS: String(leaseSeconds) });
    try {
      for (let i = 0; i < kills; i++) {
        const victim = pair[i % 2]!;
        const survivor = pair[(i + 1) % 2]!;
        const survivorId = (await survivor.api("/server")).json<{ instance_id: string }>().instance_id;
        provider.script = () => hang();
        const session = await victim.createSession();
        await victim.prompt(session, "cut");
        await sleep(300);
        provider.script = () => text("recovered");
        const killed = now();
        await victim.kill();
        for (;;) {
          const rows = await schema.query<{ node_id: string }>(
            "SELECT node_id FROM session_leases WHERE session = $1",
            [session],
          );
          if (rows[0]?.node_id === survivorId) break;
          await sleep(20);
        }
        times.push(now() - killed);
        await survivor.idle(session, 30_000);
        await victim.boot();
      }
    } finally {
      for (const node of pair) await node.close();
    }
  } finally {
    await schema.drop();
  }
  times.sort((a, b) => a - b);
  const lease = leaseSeconds * 1000;
  return [
    figure(
      "takeover_after_sigkill_p50_ms",
      quantile(times, 0.5),
      "ms",
      lease,
      `${kills} kills of the owner mid-turn; baseline: the lease length (${leaseSeconds} s)`,
    ),
    figure(
      "takeover_after_sigkill_max_ms",
      times[times.length - 1]!,
      "ms",
      lease + 3000,
      "target: max <= lease + 3 s (the baseline)",
    ),
  ];
}

// ---------------------------------------------------------------------------------------------

async function spread(provider: FakeProvider, sessions: number): Promise<Figure[]> {
  provider.script = () => text("ok");
  const one = await createPgSchema("skein_bench");
  let oneWall: number;
  let onePeak: number;
  try {
    const [single] = await nodes(provider, one, 1);
    try {
      oneWall = (await allTurns([single!], sessions, async () => (await completedTurns(one)) >= sessions))
        .wall;
      onePeak = rssOf(single!.pid).hwm / 1024;
    } finally {
      await single!.close();
    }
  } finally {
    await one.drop();
  }
  const three = await createPgSchema("skein_bench");
  let threeWall: number;
  let peaks: number[];
  try {
    const trio = await nodes(provider, three, 3);
    try {
      threeWall = (await allTurns(trio, sessions, async () => (await completedTurns(three)) >= sessions))
        .wall;
      peaks = trio.map((node) => rssOf(node.pid).hwm / 1024);
    } finally {
      for (const node of trio) await node.close();
    }
  } finally {
    await three.drop();
  }
  return [
    figure(
      "concurrent_turns_1000_three_nodes_wall_ms",
      threeWall,
      "ms",
      oneWall,
      `${sessions} sessions created round robin on 3 nodes, one short turn each, all at once; baseline: the same on one node (PostgreSQL)`,
    ),
    figure(
      "concurrent_turns_1000_three_nodes_peak_rss_mb_max",
      Math.max(...peaks),
      "MB",
      onePeak,
      `VmHWM of each node: ${peaks.map((peak) => peak.toFixed(0)).join(", ")} MB; baseline: the one node's`,
    ),
  ];
}

function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
