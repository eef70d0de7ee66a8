/**
 * Retention on a database of 1,000 sessions, on both backends: `POST /gc` with `dry_run` says
 * what would go and removes nothing; without it, the idle sessions are deleted whole and the
 * large compacted logs are cut to their tail with a `pruned` record; every session left
 * verifies, a pruned one loads and takes a new turn, and a session that is running (a turn in
 * progress, an input queued behind it) is never touched, however old and large it looks.
 * The database is built through the storage layer (the daemon stopped), not 1,000 HTTP turns.
 * Then: the background run on its interval (a loaded session waits for its actor's unload), and
 * in a cluster, a session whose lease another node holds is left alone until that node is gone.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GcReport } from "../../src/api/retention.js";
import { previewOf } from "../../src/daemon/history/preview.js";
import { loadSigningKey } from "../../src/daemon/process/signing-key.js";
import { openDaemonDatabase } from "../../src/daemon/storage/database.js";
import { openPgDaemonDatabase } from "../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../src/daemon/storage/pg-session-storage.js";
import type { SessionStorage } from "../../src/daemon/storage/session-storage.js";
import { SqliteSessionStorage } from "../../src/daemon/storage/sqlite-session-storage.js";
import type { LogEntry } from "../../src/log/entries.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import { hang, text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { DaemonHarness, databaseKinds } from "./support/daemon-harness.js";
import { profileFor, useSharedFixture } from "./support/fixture.js";
import { TestCluster } from "./support/test-cluster.js";

const dayMs = 86_400_000;
const idleCount = 600;
const largeCount = 300;
const smallCount = 100;

/** A session of `turns` turns; with `compacted`, its context was compacted keeping the last two. */
function sessionEntries(turns: number, compacted: boolean, answerBytes: number): LogEntry[] {
  const entries: LogEntry[] = [
    { kind: "session_start", ts: 1, system_prompt: "be brief", config: {}, history: [] },
    { kind: "approval_policy_changed", ts: 1, policy: null, mode: "auto-edit" },
  ];
  for (let i = 0; i < turns; i++) {
    if (compacted && i === turns - 2) {
      entries.push({
        kind: "compaction",
        ts: 5,
        summary: "the earlier turns, in brief",
        first_kept_position: entries.length - 3 * 2,
        before_tokens: 9_000,
        after_tokens: 900,
      });
    }
    entries.push({ kind: "user_input", ts: 10, item: userMessage(`question ${i}`) });
    entries.push({ kind: "assistant_items", ts: 10, items: [assistantMessage("x".repeat(answerBytes))] });
    entries.push({ kind: "turn_end", ts: 10, turn_count: i + 1 });
  }
  return entries;
}

async function openStorage(app: DaemonHarness): Promise<SessionStorage> {
  const { signer } = await loadSigningKey(app.home);
  if (app.pg !== null) return new PgSessionStorage(await openPgDaemonDatabase(app.pg.url), { signer });
  return new SqliteSessionStorage(openDaemonDatabase(app.dbPath), { signer, ownsDb: true });
}

/** 1,000 sessions written through the storage layer: idle ones, large compacted ones, small recent ones. */
async function seed(app: DaemonHarness): Promise<{ idle: string[]; large: string[]; small: string[] }> {
  const storage = await openStorage(app);
  const now = Date.now();
  const kinds = { idle: [] as string[], large: [] as string[], small: [] as string[] };
  const create = async (kind: keyof typeof kinds, createdAt: number, entries: LogEntry[]) => {
    const id = uuidv7();
    kinds[kind].push(id);
    const placed = entries.map((entry, position) => ({ entry, position }));
    await storage.createSession({ id, workspace: app.workspace, createdAt }, entries, previewOf(placed));
  };
  try {
    const jobs: Array<() => Promise<void>> = [];
    for (let i = 0; i < idleCount; i++)
      jobs.push(() => create("idle", now - 100 * dayMs, sessionEntries(3, false, 200)));
    for (let i = 0; i < largeCount; i++)
      jobs.push(() => create("large", now, sessionEntries(12, true, 2_000)));
    for (let i = 0; i < smallCount; i++) jobs.push(() => create("small", now, sessionEntries(2, false, 100)));
    for (let i = 0; i < jobs.length; i += 100) await Promise.all(jobs.slice(i, i + 100).map((job) => job()));
  } finally {
    await storage.close();
  }
  return kinds;
}

describe.each(databaseKinds)("retention over 1,000 sessions ($name)", ({ database }) => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  let seeded: Awaited<ReturnType<typeof seed>>;
  let running: string;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    provider.script = () => text("ok");
    app = await DaemonHarness.start({
      providers: profileFor(provider),
      database,
      config: { retention: { deleteIdleDays: 30, keepEntries: 8, aboveBytes: 10_000 } },
    });
    await app.shutdown();
    seeded = await seed(app);
    await app.boot();
    // A running session with an input queued behind its turn, made to look old and large.
    running = await app.createSession();
    await app.turn(running, "a first, finished turn");
    provider.script = () => hang();
    await app.prompt(running, "this turn hangs");
    await app.prompt(running, "this one waits behind it");
    await app.sql("UPDATE sessions SET activity_at = 0 WHERE id = ?", [running]);
  }, 300_000);

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  async function gc(dryRun: boolean): Promise<GcReport> {
    const response = await app.api("/gc", { method: "POST", body: { dry_run: dryRun } });
    expect(response.status).toBe(200);
    return response.json<GcReport>();
  }

  async function sessionCount(): Promise<number> {
    const rows = await app.sql<{ n: number | string }>("SELECT COUNT(*) AS n FROM sessions");
    return Number(rows[0]!.n);
  }

  it("says in a dry run what would go and how much it frees, and removes nothing", async () => {
    const report = await gc(true);
    expect(report.dry_run).toBe(true);
    expect(report.deleted.map((d) => d.session_id).sort()).toEqual([...seeded.idle].sort());
    expect(report.pruned.map((p) => p.session_id).sort()).toEqual([...seeded.large].sort());
    expect(report.bytes_freed).toBeGreaterThan(largeCount * 9 * 2_000);
    expect(report.skipped.map((s) => s.session_id)).not.toContain(running);
    expect(await sessionCount()).toBe(1_001);
    console.log(
      `dry run over 1,001 sessions (${database}): ${report.duration_ms} ms, would free ${report.bytes_freed} bytes`,
    );
  }, 120_000);

  it("deletes the idle sessions, prunes the large ones, and every log left verifies", async () => {
    const report = await gc(false);
    expect(report.deleted).toHaveLength(idleCount);
    expect(report.pruned).toHaveLength(largeCount);
    console.log(
      `gc over 1,001 sessions (${database}): ${report.duration_ms} ms, freed ${report.bytes_freed} bytes (${report.deleted.length} deleted, ${report.pruned.length} pruned)`,
    );
    expect(await sessionCount()).toBe(1 + largeCount + smallCount);
    const idleLeft = await app.sql("SELECT 1 FROM transcript WHERE session = ?", [seeded.idle[0]]);
    expect(idleLeft).toHaveLength(0);
    const started = Date.now();
    for (const id of [...seeded.large, ...seeded.small, running]) {
      const verify = await app.api(`/sessions/${id}/verify`);
      expect(verify.json<{ status: string }>().status, id).toBe("verified");
    }
    console.log(`verified ${largeCount + smallCount + 1} sessions in ${Date.now() - started} ms`);
    // A second run finds nothing more to do.
    const again = await gc(false);
    expect(again.deleted.length + again.pruned.length).toBe(0);
  }, 300_000);

  it("a pruned session still loads, pages its history and takes a new turn", async () => {
    const id = seeded.large[0]!;
    const first = await app.sql<{ p: number | string }>(
      "SELECT MIN(position) AS p FROM transcript WHERE session = ?",
      [id],
    );
    expect(Number(first[0]!.p)).toBeGreaterThan(0);
    provider.script = () => text("still here");
    await app.turn(id, "are you there?");
    const history = await app.history(id);
    expect(history.items.some((item) => item.content.some((c) => c.text === "still here"))).toBe(true);
    expect((await app.api(`/sessions/${id}/verify`)).json<{ status: string }>().status).toBe("verified");
    // Forked at its last answer: the fork starts from the pruned session's replayed state.
    const answer = history.items.findLast((item) => item.checkpoint_id !== null)!;
    const fork = uuidv7();
    const created = await app.api(`/sessions/${fork}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "fork", source_session_id: id, checkpoint_id: answer.checkpoint_id },
    });
    expect(created.status, created.text).toBe(201);
    const before = provider.requests.length;
    await app.turn(fork, "and in the fork?");
    const sent = provider.requests
      .slice(before)
      .map((request) => request.rawBody)
      .join("\n");
    expect(sent).toContain("the earlier turns, in brief");
    expect(sent).toContain("are you there?");
    expect((await app.api(`/sessions/${fork}/verify`)).json<{ status: string }>().status).toBe("verified");
  }, 60_000);

  it("never touches a running session, nor the input queued behind its turn", async () => {
    const snapshot = (await app.api(`/sessions/${running}?tail=0`)).json<{
      status: { phase: string };
      pending_inputs: unknown[];
    }>();
    expect(snapshot.status.phase).toBe("running");
    expect(snapshot.pending_inputs).toHaveLength(1);
    const rows = await app.sql<{ p: number | string }>(
      "SELECT MIN(position) AS p FROM transcript WHERE session = ?",
      [running],
    );
    expect(Number(rows[0]!.p)).toBe(0);
  });
});

describe("retention in the background", () => {
  const shared = useSharedFixture({
    answer: "ok",
    config: { retention: { deleteIdleDays: 1, intervalMinutes: 0.01 } },
    env: { SKEIN_UNLOAD_SECONDS: "1" },
  });

  it("deletes a session idle past the limit once its actor is unloaded, and counts it", async () => {
    const old = await shared.app.createSession();
    await shared.app.turn(old, "hello");
    const recent = await shared.app.createSession();
    await shared.app.sql("UPDATE sessions SET activity_at = ? WHERE id = ?", [Date.now() - 2 * dayMs, old]);
    const deadline = Date.now() + 15_000;
    while ((await shared.app.sql("SELECT 1 FROM sessions WHERE id = ?", [old])).length > 0) {
      if (Date.now() > deadline) throw new Error("the idle session was not deleted in the background");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await shared.app.sql("SELECT 1 FROM transcript WHERE session = ?", [old])).toHaveLength(0);
    expect(await shared.app.sql("SELECT 1 FROM sessions WHERE id = ?", [recent])).toHaveLength(1);
    expect((await shared.app.api(`/sessions/${old}`)).status).toBe(404);
    const metrics = (await shared.app.api("/metrics")).text;
    expect(metrics).toMatch(/skein_retention_sessions_total\{action="deleted"\} 1/);
    expect(shared.app.readLog()).toContain("retention deleted an idle session");
  }, 30_000);
});

describe("retention in a cluster", () => {
  let provider: FakeProvider;
  let cluster: TestCluster;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    cluster = new TestCluster(provider);
    await cluster.start(2, 2);
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    await provider?.close();
  });

  it("leaves a session another node holds, and takes it once that node is gone", async () => {
    const [a, b] = cluster.nodes as [DaemonHarness, DaemonHarness];
    const here = await a.createSession();
    await a.turn(here, "held here");
    const there = await b.createSession();
    await b.turn(there, "held there");
    const old = Date.now() - 2 * dayMs;
    await cluster.schema.query("UPDATE sessions SET activity_at = $1 WHERE id IN ($2, $3)", [
      old,
      here,
      there,
    ]);
    const config = join(a.home, "config.json");
    const current = JSON.parse(readFileSync(config, "utf8")) as Record<string, unknown>;
    writeFileSync(config, JSON.stringify({ ...current, retention: { deleteIdleDays: 1 } }), { mode: 0o600 });
    let report: GcReport | null = null;
    for (let tries = 0; report?.policy == null && tries < 50; tries++) {
      report = (await a.api("/gc", { method: "POST", body: {} })).json<GcReport>();
      if (report.policy === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(report!.deleted).toEqual([]);
    const reasons = Object.fromEntries(report!.skipped.map((s) => [s.session_id, s.reason]));
    expect(reasons[here]).toBe("loaded on this node");
    expect(reasons[there]).toMatch(/^its lease is held by another node/);

    await b.shutdown();
    const after = (await a.api("/gc", { method: "POST", body: {} })).json<GcReport>();
    expect(after.deleted.map((d) => d.session_id)).toEqual([there]);
    expect(await cluster.schema.query("SELECT 1 FROM sessions WHERE id = $1", [there])).toHaveLength(0);
    expect((await a.api(`/sessions/${here}/verify`)).json<{ status: string }>().status).toBe("verified");
  }, 60_000);
});
