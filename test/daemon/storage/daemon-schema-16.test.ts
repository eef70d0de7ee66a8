/**
 * Migration 16 (fewer index pages per turn) on databases written by version 15, both backends:
 * the pending inputs' index holds only pending inputs, turns are indexed by session alone, and
 * the schedules' usage index only rows of a schedule; every query those indexes served answers
 * as before, and on SQLite through the new indexes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaVersion } from "../../../src/daemon/storage/daemon-schema.js";
import { currentSchemaVersion } from "../../../src/daemon/storage/database.js";
import { lastDeliveredInputProgram } from "../../../src/daemon/storage/delivery-evidence.js";
import { runPg } from "../../../src/daemon/storage/pg-runner.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import { run, type SqlProgram } from "../../../src/daemon/storage/sql-program.js";
import { runSqlite } from "../../../src/daemon/storage/sqlite-runner.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { migratedPg, migratedSqlite } from "./older-schema.js";

const day = 20_000;

/**
 * Rows as version 15 wrote them: session `s` with a committed input, two pending ones and a
 * cancelled one, a completed turn and a running one; usage of no schedule and of schedule `daily`.
 */
function* seedProgram(): SqlProgram<void> {
  yield* run("INSERT INTO sessions (id, workspace, created_at, activity_at) VALUES ('s', '/w', 1, 1)");
  yield* run("INSERT INTO sessions (id, workspace, created_at, activity_at) VALUES ('quiet', '/w', 1, 1)");
  const input = (id: string, order: number, delivery: string, turn: string | null, position: number | null) =>
    run(
      `INSERT INTO inputs (id, session, kind, intent, accepted_at, acceptance_order, delivery, turn_id, transcript_position)
       VALUES (?, 's', 'message', '{"kind":"message","text":"hi"}', ?, ?, ?, ?, ?)`,
      id,
      order,
      order,
      delivery,
      turn,
      position,
    );
  yield* input("i1", 1, "committed", "t1", 0);
  yield* input("i2", 2, "cancelled", null, null);
  yield* input("i3", 3, "pending", null, null);
  yield* input("i4", 4, "pending", null, null);
  const turn = (id: string, state: string) =>
    run(
      "INSERT INTO turns (id, session, state, started_at, ended_at, input_ids) VALUES (?, 's', ?, 1, NULL, '[]')",
      id,
      state,
    );
  yield* turn("t1", "completed");
  yield* turn("t2", "running");
  const usage = (schedule: string, tokens: number) =>
    run(
      `INSERT INTO budget_usage (session_id, day, profile, schedule, tokens, cost_nanos, requests)
       VALUES ('s', ?, 'p', ?, ?, 0, 1)`,
      day,
      schedule,
      tokens,
    );
  yield* usage("", 100);
  yield* usage("daily", 7);
}

/** What the queries the changed indexes served answer after the migration, on either backend. */
async function expectSameAnswers(storage: SessionStorage): Promise<void> {
  expect((await storage.pendingInputs("s")).map((input) => input.id)).toEqual(["i3", "i4"]);
  expect(await storage.pendingInputs("quiet")).toEqual([]);
  expect((await storage.runningTurnOf("s"))?.id).toBe("t2");
  expect((await storage.runningTurns()).map((turn) => turn.id)).toEqual(["t2"]);
  expect(await storage.usageTotals({ kind: "schedule", scheduleId: "daily" }, day)).toEqual({
    tokens: 7,
    costUsd: 0,
  });
  expect(await storage.usageTotals({ kind: "profile", profile: "p" }, null)).toEqual({
    tokens: 107,
    costUsd: 0,
  });
}

describe("migration 16 on a SQLite database of version 15", () => {
  it("swaps the three indexes, and the queries they served answer the same through the new ones", async () => {
    const { db, storage } = migratedSqlite(15, seedProgram);
    try {
      expect(currentSchemaVersion(db)).toBe(schemaVersion);
      const indexes = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('inputs', 'turns')")
        .all() as Array<{ name: string }>;
      expect(indexes.map((index) => index.name)).not.toContain("inputs_by_delivery");
      expect(indexes.map((index) => index.name)).not.toContain("turns_by_session_state");
      await expectSameAnswers(storage);
      expect(runSqlite(db, lastDeliveredInputProgram("s"))).toEqual({ id: "i1", position: 0 });
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>)
          .map((row) => row.detail)
          .join("; ");
      expect(
        plan("SELECT * FROM inputs WHERE session = 's' AND delivery = 'pending' ORDER BY acceptance_order"),
      ).toMatch(/INDEX inputs_pending/);
      expect(plan("DELETE FROM turns WHERE session = 's'")).toMatch(/INDEX turns_by_session/);
      expect(
        plan("SELECT sum(tokens) FROM budget_usage WHERE schedule = 'daily' AND schedule <> '' AND day >= 1"),
      ).toMatch(/COVERING INDEX budget_usage_by_schedule/);
      // Only pending inputs and rows of a schedule are in the partial indexes (each one page here).
      const entries = (index: string) =>
        (db.prepare("SELECT sum(ncell) AS n FROM dbstat WHERE name = ?").get(index) as { n: number }).n;
      expect(entries("inputs_pending")).toBe(2);
      expect(entries("budget_usage_by_schedule")).toBe(1);
      expect(entries("turns_by_session")).toBe(2);
    } finally {
      await storage.close();
    }
  });
});

describe("migration 16 on a PostgreSQL schema of version 15", () => {
  let schema: PgSchema;
  beforeAll(async () => {
    schema = await createPgSchema("skein_schema16");
  });
  afterAll(async () => {
    await schema?.drop();
  });

  it("swaps the same three indexes, and the queries they served answer the same", async () => {
    const { pool, storage } = await migratedPg(schema, 15, seedProgram);
    try {
      const rows = await schema.query<{ indexname: string; indexdef: string }>(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('inputs', 'turns', 'budget_usage')",
      );
      const definition = (name: string) => rows.find((row) => row.indexname === name)?.indexdef ?? "";
      expect(rows.map((row) => row.indexname)).not.toContain("inputs_by_delivery");
      expect(rows.map((row) => row.indexname)).not.toContain("turns_by_session_state");
      expect(definition("inputs_pending")).toMatch(
        /\(session, acceptance_order\) WHERE \(delivery = 'pending'::text\)/,
      );
      expect(definition("turns_by_session")).toMatch(/\(session\)$/);
      expect(definition("budget_usage_by_schedule")).toMatch(/WHERE \(schedule <> ''::text\)/);
      await expectSameAnswers(storage);
      expect(await runPg(pool, lastDeliveredInputProgram("s"))).toEqual({ id: "i1", position: 0 });
    } finally {
      await storage.close();
    }
  });
});
