import { describe, expect, it } from "vitest";
import type { DaemonDatabase } from "../../../src/daemon/storage/database.js";
import { getReceipt } from "../../../src/daemon/storage/inputs-table.js";
import { rowWritesProgram } from "../../../src/daemon/storage/row-writes.js";
import { getSession } from "../../../src/daemon/storage/sessions-table.js";
import type { SqlProgram, SqlStep } from "../../../src/daemon/storage/sql-program.js";
import { runSqlite } from "../../../src/daemon/storage/sqlite-runner.js";
import { getTurn, startTurn } from "../../../src/daemon/storage/turns-table.js";
import { addSession, tempDatabase } from "./temp-database.js";

/** Run `program` on `db` one step at a time, keeping the SQL of each statement it ran. */
function runCounting<T>(db: DaemonDatabase, program: SqlProgram<T>): { result: T; statements: string[] } {
  const statements: string[] = [];
  let next = program.next();
  while (!next.done) {
    const step: SqlStep = next.value;
    if (step.op !== "dialect") statements.push(step.sql);
    next = program.next(
      runSqlite(
        db,
        (function* () {
          return yield step;
        })(),
      ),
    );
  }
  return { result: next.value, statements };
}

/** A database with session "s1" (created at 1,000) whose turn "t1" runs since 1,500. */
function sessionWithRunningTurn(): DaemonDatabase {
  const { db } = tempDatabase();
  addSession(db, "s1", 1_000);
  startTurn(db, { session: "s1", id: "t1", inputIds: [], startedAt: 1_500 });
  return db;
}

describe("the row writes that commit with a log append", () => {
  it("change the session's usage, preview and activity time in one statement", () => {
    const db = sessionWithRunningTurn();
    const { statements } = runCounting(
      db,
      rowWritesProgram("s1", {
        endTurn: { id: "t1", state: "completed", endedAt: 2_000, error: null },
        usage: { input_tokens: 10, output_tokens: 5 },
        preview: { text: "hello", transcript_count: 4, truncated: false },
        activityAt: 2_000,
      }),
    );
    expect(statements.filter((sql) => sql.startsWith("UPDATE sessions"))).toHaveLength(1);
    const session = getSession(db, "s1");
    expect(session?.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      cached_prompt_tokens: 0,
      total_tokens: 15,
    });
    expect(session?.preview).toEqual({ text: "hello", transcript_count: 4, truncated: false });
    expect(session?.activityAt).toBe(2_000);
    expect(getTurn(db, "t1")?.state).toBe("completed");
  });

  it("never move the activity time backwards, whatever else they change", () => {
    const { db } = tempDatabase();
    addSession(db, "s1", 5_000);
    runCounting(
      db,
      rowWritesProgram("s1", {
        activityAt: 4_000,
        preview: { text: "x", transcript_count: 1, truncated: true },
      }),
    );
    expect(getSession(db, "s1")?.activityAt).toBe(5_000);
    expect(getSession(db, "s1")?.preview.truncated).toBe(true);
  });

  it("leave the session's row alone when they change nothing of it", () => {
    const db = sessionWithRunningTurn();
    const { statements } = runCounting(
      db,
      rowWritesProgram("s1", {
        endTurn: { id: "t1", state: "failed", endedAt: 2_000, error: "boom" },
        usage: {},
      }),
    );
    expect(statements.some((sql) => sql.startsWith("UPDATE sessions"))).toBe(false);
  });

  it("admit, start and deliver a fresh input in three statements: the session's row once, the turn, the input stored delivered", () => {
    const { db } = tempDatabase();
    addSession(db, "s1", 1_000);
    const { statements } = runCounting(
      db,
      rowWritesProgram("s1", {
        admission: {
          input: { session: "s1", id: "i1", kind: "message", intent: { text: "hi" }, acceptedAt: 2_000 },
          order: 1,
        },
        startTurn: { id: "t1", inputIds: ["i1"], startedAt: 2_000 },
        committedInputs: { turnId: "t1", inputs: [{ id: "i1", transcriptPosition: 1 }] },
        preview: { text: "hi", transcript_count: 2, truncated: false },
        activityAt: 2_000,
      }),
    );
    expect(statements.map((sql) => sql.split(/\s+/).slice(0, 2).join(" "))).toEqual([
      "UPDATE sessions",
      "INSERT INTO",
      "INSERT INTO",
    ]);
    expect(getReceipt(db, "s1", "i1")).toMatchObject({
      acceptance_order: 1,
      delivery: "committed",
      transcript_position: 1,
      turn: { id: "t1", state: "running" },
    });
    const session = getSession(db, "s1");
    expect(session).toMatchObject({ inputOrder: 1, activityAt: 2_000 });
    expect(session?.preview.text).toBe("hi");
  });
});
