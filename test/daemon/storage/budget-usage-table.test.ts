/**
 * The budget_usage table through the storage port on both backends: an answer's usage is added
 * up in the same transaction that appends its entry (and not when the append fails), per
 * session, UTC day, profile and schedule; a session's creation (a fork's copied entries) adds
 * nothing; a session's sum takes in its `task` children's; and the sums a budget check reads stay cheap with many rows (the figure is printed).
 */
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { dayMs } from "../../../src/daemon/storage/budget-usage-table.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { LogEntry, RequestUsage } from "../../../src/log/entries.js";
import { AppendConflictError } from "../../../src/log/errors.js";
import { assistantMessage } from "../../../src/model/items.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { rejectionOf } from "../../support/rejection.js";
import { tempDatabase } from "./temp-database.js";

let schema: PgSchema;
beforeAll(async () => {
  schema = await createPgSchema("skein_budget_usage");
});
afterAll(async () => {
  await schema.drop();
});

interface Backend {
  name: string;
  open(): Promise<SessionStorage>;
  /** Many usage rows at once, behind the storage's back (for the figure). */
  fill(rows: Array<[string, number, string, string, number, number]>): Promise<void>;
}

let sqlitePath = "";
let pgUrl = "";

const backends: Backend[] = [
  {
    name: "SQLite",
    async open() {
      const { db, path } = tempDatabase();
      sqlitePath = path;
      return new SqliteSessionStorage(db);
    },
    async fill(rows) {
      const Database = (await import("better-sqlite3")).default;
      const db = new Database(sqlitePath);
      const insert = db.prepare(
        "INSERT INTO budget_usage (session_id, day, profile, schedule, tokens, cost_nanos, requests) VALUES (?, ?, ?, ?, ?, ?, 1)",
      );
      db.transaction(() => {
        for (const row of rows) insert.run(...row);
      })();
      db.close();
    },
  },
  {
    name: "PostgreSQL",
    async open() {
      await schema.query(`DROP SCHEMA ${schema.name} CASCADE; CREATE SCHEMA ${schema.name}`);
      pgUrl = schema.url;
      const storage = new PgSessionStorage(await openPgDaemonDatabase(pgUrl, { max: 4 }));
      onTestFinished(() => storage.close());
      return storage;
    },
    async fill(rows) {
      for (let start = 0; start < rows.length; start += 5_000) {
        const chunk = rows.slice(start, start + 5_000);
        const values = chunk.map(
          (_, i) =>
            `($${i * 6 + 1}, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}, $${i * 6 + 5}, $${i * 6 + 6}, 1)`,
        );
        await schema.query(
          `INSERT INTO ${schema.name}.budget_usage (session_id, day, profile, schedule, tokens, cost_nanos, requests) VALUES ${values.join(", ")}`,
          chunk.flat(),
        );
      }
    },
  },
];

const day = 20_000;
const ts = day * dayMs + 3_600_000;

function answer(at: number, usage: RequestUsage): LogEntry {
  return { kind: "assistant_items", ts: at, items: [assistantMessage("ok")], usage };
}

const usage = (tokens: number, extra: Partial<RequestUsage> = {}): RequestUsage => ({
  input_tokens: tokens - 10,
  output_tokens: 10,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  profile: "work",
  ...extra,
});

async function newSession(storage: SessionStorage, id: string, entries: LogEntry[] = []): Promise<void> {
  await storage.createSession(
    { id, workspace: "/tmp/w", createdAt: ts },
    [{ kind: "session_start", ts, system_prompt: null, config: {}, history: [] }, ...entries],
    emptyPreview,
  );
}

describe.each(backends)("the budget_usage table on $name", (backend) => {
  it("adds each answer's usage in its append's transaction, per session, day, profile and schedule", async () => {
    const storage = await backend.open();
    // A creation's entries (a fork's copies) are never counted.
    await newSession(storage, "a", [answer(ts, usage(1000))]);
    await newSession(storage, "b");
    const a = storage.writerFrom("a", await storage.readLog("a"));
    await a.append([answer(ts, usage(100, { cost_usd: 0.25 })), answer(ts + 1, usage(50))], {});
    await a.append([answer(ts + dayMs, usage(40, { schedule: "nightly" }))], {});
    const b = storage.writerFrom("b", await storage.readLog("b"));
    await b.append([answer(ts, usage(30, { profile: "home", cost_usd: 0.1 }))], {});
    await b.append([{ kind: "user_input", ts, item: assistantMessage("no usage") }], {});

    expect(await storage.usageTotals({ kind: "session", sessionId: "a" }, null)).toEqual({
      tokens: 190,
      costUsd: 0.25,
    });
    expect(await storage.usageTotals({ kind: "session", sessionId: "a" }, day + 1)).toEqual({
      tokens: 40,
      costUsd: 0,
    });
    expect(await storage.usageTotals({ kind: "profile", profile: "work" }, day)).toEqual({
      tokens: 190,
      costUsd: 0.25,
    });
    expect(await storage.usageTotals({ kind: "profile", profile: "home" }, null)).toEqual({
      tokens: 30,
      costUsd: 0.1,
    });
    expect(await storage.usageTotals({ kind: "schedule", scheduleId: "nightly" }, null)).toEqual({
      tokens: 40,
      costUsd: 0,
    });
    expect(await storage.usageTotals({ kind: "session", sessionId: "none" }, null)).toEqual({
      tokens: 0,
      costUsd: 0,
    });

    // An append that loses its compare-and-append writes no usage either.
    const stale = storage.writerFrom("b", (await storage.readLog("b")).slice(0, 1));
    await rejectionOf(
      stale.append([answer(ts, usage(999))], {}),
      (error) => error instanceof AppendConflictError,
    );
    expect(await storage.usageTotals({ kind: "session", sessionId: "b" }, null)).toEqual({
      tokens: 30,
      costUsd: 0.1,
    });
    // Deleting a session keeps what it spent toward its profile's day.
    await storage.deleteSession("b");
    expect(await storage.usageTotals({ kind: "profile", profile: "home" }, null)).toEqual({
      tokens: 30,
      costUsd: 0.1,
    });
  });

  it("counts a session's task children, and theirs, toward its session budget, but not a fork nor a sibling", async () => {
    const storage = await backend.open();
    const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };
    const make = (id: string, parentId: string | null, task: boolean) =>
      storage.createSession(
        {
          id,
          workspace: "/tmp/w",
          createdAt: ts,
          parentId,
          ...(task ? { task: { parentCallId: `call-${id}`, agent: "general" } } : {}),
        },
        [start],
        emptyPreview,
      );
    await make("parent", null, false);
    await make("child", "parent", true);
    await make("grandchild", "child", true);
    await make("sibling", "child", true);
    await make("fork", "parent", false);
    const spend = async (id: string, tokens: number) =>
      storage.writerFrom(id, await storage.readLog(id)).append([answer(ts, usage(tokens))], {});
    await spend("parent", 1000);
    await spend("child", 200);
    await spend("grandchild", 30);
    await spend("sibling", 4);
    await spend("fork", 50_000);
    const session = (sessionId: string) => storage.usageTotals({ kind: "session", sessionId }, day);
    expect((await session("parent")).tokens).toBe(1234);
    expect((await session("child")).tokens).toBe(234);
    expect((await session("grandchild")).tokens).toBe(30);
    expect((await session("fork")).tokens).toBe(50_000);
    // Each request is still counted once toward its profile's day.
    expect((await storage.usageTotals({ kind: "profile", profile: "work" }, day)).tokens).toBe(51_234);
  });

  it("answers a budget's sum in well under a millisecond or so among 100,000 rows", async () => {
    const storage = await backend.open();
    const rows: Array<[string, number, string, string, number, number]> = [];
    // 5,000 sessions over 20 days on 10 profiles, a tenth of them a schedule's.
    for (let s = 0; s < 5_000; s++) {
      for (let d = 0; d < 20; d++) {
        rows.push([`s${s}`, day - d, `p${s % 10}`, s % 10 === 0 ? `sched${s % 50}` : "", 100, 1000]);
      }
    }
    await backend.fill(rows);
    const time = async (label: string, read: () => Promise<unknown>) => {
      for (let i = 0; i < 20; i++) await read();
      const runs = 200;
      const began = performance.now();
      for (let i = 0; i < runs; i++) await read();
      const ms = (performance.now() - began) / runs;
      console.log(
        `${backend.name} budget check (${label}): ${ms.toFixed(3)} ms per sum among ${rows.length} rows`,
      );
      return ms;
    };
    expect(await storage.usageTotals({ kind: "profile", profile: "p3" }, day)).toEqual({
      tokens: 50_000,
      costUsd: 0.0005,
    });
    const session = await time("session, total", () =>
      storage.usageTotals({ kind: "session", sessionId: "s42" }, null),
    );
    const profile = await time("profile, day", () =>
      storage.usageTotals({ kind: "profile", profile: "p3" }, day),
    );
    const scheduled = await time("schedule, total", () =>
      storage.usageTotals({ kind: "schedule", scheduleId: "sched10" }, null),
    );
    // Generous bounds for a shared 2-core machine: an index scan, not a table scan.
    for (const ms of [session, profile]) expect(ms).toBeLessThan(20);
    expect(scheduled).toBeLessThan(50);
  });
});
