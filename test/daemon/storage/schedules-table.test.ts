/**
 * The schedules table through the storage port on both backends: a schedule is stored once per
 * id, listed, found due by its next firing, paused and removed, and its next firing moves only
 * by a compare-and-set on the value it had (of racing moves exactly one wins); a tick's reads
 * use the index of active schedules (SQLite's plans).
 */
import { describe, expect, it } from "vitest";
import {
  dueSchedulesProgram,
  earliestFiringProgram,
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
    expect((await storage.listSchedules()).map((listed) => listed.id).sort()).toEqual([
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

describe("the scheduler's reads of a tick (SQLite query plans)", () => {
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

  it("binds no LIMIT in a tick's read of the due schedules, so SQLite does not prepare it again each tick", () => {
    // SQLite's planner reads a bound LIMIT's value, which expires the statement at every bind.
    const step = dueSchedulesProgram(10_000, 100).next().value as SqlStep;
    if (step.op === "dialect") throw new Error("expected a statement");
    expect(step.sql).toMatch(/LIMIT 100$/);
    expect(step.params).toEqual([10_000]);
  });
});
