/**
 * The schedules table through the storage port on both backends: a schedule is stored once per
 * id, listed, found due by its next firing, paused and removed, and its next firing moves only
 * by a compare-and-set on the value it had (of racing moves exactly one wins).
 */
import { describe, expect, it } from "vitest";
import type { ScheduleRow } from "../../../src/daemon/storage/schedules-table.js";
import { storageBackends } from "./storage-backends.js";

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
