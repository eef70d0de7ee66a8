/**
 * Migration 17 (the schedules by creation) on databases written by version 16, both backends:
 * the schedules version 16 kept list in pages oldest first, ties by id, and every page, the first
 * or one past a key, is a range of `schedules_by_creation` with nothing sorted (SQLite's plan, and
 * PostgreSQL's with sequential scans priced out, as a table grown large would have them).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaVersion } from "../../../src/daemon/storage/daemon-schema.js";
import { currentSchemaVersion } from "../../../src/daemon/storage/database.js";
import { listSchedulesProgram, type SchedulePage } from "../../../src/daemon/storage/schedules-table.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import { run, type SqlProgram, type SqlStep } from "../../../src/daemon/storage/sql-program.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { migratedPg, migratedSqlite } from "./older-schema.js";

/** Schedules as version 16 wrote them: ids against creation order, two sharing a creation time. */
function* seedProgram(): SqlProgram<void> {
  const schedule = (id: string, createdAt: number) =>
    run(
      `INSERT INTO schedules (id, cron, session_id, prompt, missed, next_fire_at, created_at)
       VALUES (?, '0 7 * * *', 's', 'p', 'skip', 100000, ?)`,
      id,
      createdAt,
    );
  yield* schedule("d", 1_000);
  yield* schedule("c", 2_000);
  yield* schedule("b", 2_000);
  yield* schedule("a", 3_000);
}

/** The pages an earlier daemon's schedules list in after the migration, on either backend. */
async function expectPages(storage: SessionStorage): Promise<void> {
  const ids = async (page: SchedulePage) => (await storage.listSchedules(page)).map((row) => row.id);
  expect(await ids({ limit: 2 })).toEqual(["d", "b"]);
  expect(await ids({ limit: 2, after: { createdAt: 2_000, id: "b" } })).toEqual(["c", "a"]);
}

/** The pages whose plans are checked: the first, and one past a key. */
const pages: SchedulePage[] = [{ limit: 101 }, { limit: 101, after: { createdAt: 2_000, id: "b" } }];

/** The statement a listing page runs. */
function statementOf(page: SchedulePage): { sql: string; params: readonly unknown[] } {
  const step = listSchedulesProgram(page).next().value as SqlStep;
  if (step.op === "dialect") throw new Error("expected a statement");
  return step;
}

describe("migration 17 on a SQLite database of version 16", () => {
  it("lists the schedules it kept in pages through the new index, sorting nothing", async () => {
    const { db, storage } = migratedSqlite(16, seedProgram);
    try {
      expect(currentSchemaVersion(db)).toBe(schemaVersion);
      await expectPages(storage);
      for (const page of pages) {
        const { sql, params } = statementOf(page);
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
          .map((row) => row.detail)
          .join("; ");
        expect(plan).toMatch(/USING (COVERING )?INDEX schedules_by_creation/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
      }
    } finally {
      await storage.close();
    }
  });
});

describe("migration 17 on a PostgreSQL schema of version 16", () => {
  let schema: PgSchema;
  beforeAll(async () => {
    schema = await createPgSchema("skein_schema17");
  });
  afterAll(async () => {
    await schema?.drop();
  });

  it("adds the same index, and each page is an index scan of it with no sort", async () => {
    const { storage } = await migratedPg(schema, 16, seedProgram);
    try {
      const [index] = await schema.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'schedules_by_creation'",
      );
      expect(index?.indexdef).toMatch(/ON \S*schedules USING btree \(created_at, id\)$/);
      await expectPages(storage);
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      try {
        // Four rows are read fastest by a scan; a table of many is not, which this stands in for.
        await client.query("SET enable_seqscan = off");
        for (const page of pages) {
          const { sql, params } = statementOf(page);
          let n = 0;
          const numbered = sql.replace(/\?/g, () => `$${++n}`);
          const rows = (await client.query(`EXPLAIN ${numbered}`, [...params])).rows as Array<{
            "QUERY PLAN": string;
          }>;
          const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
          expect(plan).toMatch(/Index Scan using schedules_by_creation/);
          expect(plan).not.toMatch(/Sort/);
        }
      } finally {
        await client.end();
      }
    } finally {
      await storage.close();
    }
  });
});
