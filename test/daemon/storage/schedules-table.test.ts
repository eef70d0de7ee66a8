/**
 * The schedules table through the storage port on both backends: a schedule is stored once per
 * id, listed in pages (oldest first, then by id), found due by its next firing, paused and
 * removed, and its next firing moves only by a compare-and-set on the value it had (of racing
 * moves exactly one wins); a tick's reads use the index of active schedules, a listing's page a
 * range of the index by creation (SQLite's plans).
 */
import { describe, expect, it } from "vitest";
import {
  dueSchedulesProgram,
  earliestFiringProgram,
  listSchedulesProgram,
  type ScheduleRow,
} from "../../../src/daemon/storage/schedules-table.js";
import type { SqlProgram, SqlStep } from "../../../src/daemon/storage/sql-program.js";
import { storageBackends } from "./storage-backends.js";
import { tempDatabase } from "./temp-database.js";

const backends = storageBackends("skein_schedules");

function row(id: string, nextFireAt: number | null): ScheduleRow {
  return {
    id,
    cron: "* * * * *",
    at: null,
    timezone: "Europe/Berlin",
    sessionId: null,
    newSession: { workspace: "/tmp/w", profile: null },
    prompt: "p",
    missed: "run_once",
    paused: false,
    nextFireAt,
    lastFiredAt: null,
    lastInputId: null,
    lastSessionId: null,
    createdAt: 1_000,
    budget: null,
  };
}

describe.each(backends)("the schedules table ($name)", (backend) => {
  it("stores a schedule once per id and reads it back as stored", async () => {
    const storage = await backend.open();
    expect(await storage.createSchedule(row("a", 60_000))).toBe(true);
    expect(await storage.createSchedule({ ...row("a", 1), prompt: "other" })).toBe(false);
    expect(await storage.getSchedule("a")).toEqual(row("a", 60_000));
    expect(await storage.getSchedule("b")).toBeNull();
  });

  it("finds due schedules, most overdue first, leaving out paused and finished ones", async () => {
    const storage = await backend.open();
    await storage.createSchedule(row("late", 5_000));
    await storage.createSchedule(row("later", 9_000));
    await storage.createSchedule(row("future", 20_000));
    await storage.createSchedule(row("done", null));
    await storage.createSchedule(row("paused", 1_000));
    expect(await storage.setSchedulePaused("paused", true)).toBe(true);
    expect((await storage.dueSchedules(10_000, 10)).map((due) => due.id)).toEqual(["late", "later"]);
    expect(await storage.earliestFiring()).toBe(5_000);
    expect((await storage.listSchedules({ limit: 10 })).map((listed) => listed.id).sort()).toEqual([
      "done",
      "future",
      "late",
      "later",
      "paused",
    ]);
    expect(await storage.deleteSchedule("late")).toBe(true);
    expect(await storage.deleteSchedule("late")).toBe(false);
    expect(await storage.setSchedulePaused("late", false)).toBe(false);
  });

  it("lists in pages oldest first, ties by id, each page starting past the key it is given", async () => {
    const storage = await backend.open();
    // Ids against creation order, and two creation times shared by several schedules.
    const created = [
      { id: "e", createdAt: 1_000 },
      { id: "d", createdAt: 2_000 },
      { id: "c", createdAt: 2_000 },
      { id: "b", createdAt: 2_000 },
      { id: "a", createdAt: 3_000 },
      { id: "z", createdAt: 1_000 },
    ];
    for (const { id, createdAt } of created) await storage.createSchedule({ ...row(id, null), createdAt });
    const ids = (rows: ScheduleRow[]) => rows.map((listed) => listed.id);
    expect(ids(await storage.listSchedules({ limit: 10 }))).toEqual(["e", "z", "b", "c", "d", "a"]);
    expect(ids(await storage.listSchedules({ limit: 2 }))).toEqual(["e", "z"]);
    expect(ids(await storage.listSchedules({ limit: 2, after: { createdAt: 1_000, id: "z" } }))).toEqual([
      "b",
      "c",
    ]);
    expect(ids(await storage.listSchedules({ limit: 2, after: { createdAt: 2_000, id: "c" } }))).toEqual([
      "d",
      "a",
    ]);
    expect(ids(await storage.listSchedules({ limit: 2, after: { createdAt: 3_000, id: "a" } }))).toEqual([]);
    // A key no schedule has (the one it named was removed) still starts where it would have been.
    expect(ids(await storage.listSchedules({ limit: 3, after: { createdAt: 2_000, id: "bb" } }))).toEqual([
      "c",
      "d",
      "a",
    ]);
  });

  it("moves the next firing only from the value it has, once among racing moves", async () => {
    const storage = await backend.open();
    await storage.createSchedule(row("s", 5_000));
    const firing = { firedAt: 5_000, inputId: "input", sessionId: "session" };
    const racing = await Promise.all([
      storage.advanceSchedule("s", 5_000, 6_000, firing),
      storage.advanceSchedule("s", 5_000, 6_000, firing),
      storage.advanceSchedule("s", 5_000, 6_000, null),
    ]);
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect((await storage.getSchedule("s"))?.nextFireAt).toBe(6_000);
    expect(await storage.advanceSchedule("s", 5_000, 7_000, null)).toBe(false);
    expect(await storage.advanceSchedule("s", 6_000, null, firing)).toBe(true);
    expect(await storage.getSchedule("s")).toMatchObject({
      nextFireAt: null,
      lastFiredAt: 5_000,
      lastInputId: "input",
      lastSessionId: "session",
    });
  });
});

describe("the schedules' reads (SQLite query plans)", () => {
  /** The plan SQLite picks for the first statement `program` yields. */
  function planOf(program: SqlProgram<unknown>): string {
    const step = program.next().value as SqlStep;
    if (step.op === "dialect") throw new Error("expected a statement");
    const { db } = tempDatabase();
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${step.sql}`).all(...step.params) as { detail: string }[];
    return rows.map((r) => r.detail).join("; ");
  }

  it("reach active schedules through an index of those alone, so paused ones cost a tick nothing", () => {
    // A paused schedule keeps its past next firing: an index of every schedule made each tick
    // step over all of them.
    for (const plan of [planOf(dueSchedulesProgram(10_000, 100)), planOf(earliestFiringProgram())]) {
      expect(plan).toMatch(/USING (COVERING )?INDEX schedules_active_by_next_firing/);
    }
  });

  it("reads a listing's page as a range of the index by creation, sorting nothing, wherever the page starts", () => {
    for (const page of [{ limit: 101 }, { limit: 101, after: { createdAt: 5_000, id: "s" } }]) {
      const plan = planOf(listSchedulesProgram(page));
      expect(plan).toMatch(/USING (COVERING )?INDEX schedules_by_creation/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("binds no LIMIT in a tick's read of the due schedules, so SQLite does not prepare it again each tick", () => {
    // SQLite's planner reads a bound LIMIT's value, which expires the statement at every bind.
    const step = dueSchedulesProgram(10_000, 100).next().value as SqlStep;
    if (step.op === "dialect") throw new Error("expected a statement");
    expect(step.sql).toMatch(/LIMIT 100$/);
    expect(step.params).toEqual([10_000]);
  });
});
