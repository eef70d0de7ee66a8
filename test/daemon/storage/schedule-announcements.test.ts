/**
 * On PostgreSQL a schedule's creation, pause, resume and removal are announced on
 * `skein_schedules` at their commit, naming the schedule, so every node's scheduler looks at
 * the table again; a write that changed nothing and a moved next firing (it only moves later)
 * announce nothing.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScheduleRow, schedulesChannel } from "../../../src/daemon/storage/schedules-table.js";
import { eventually } from "../../support/eventually.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { freshPgSessionStorage } from "./storage-backends.js";

let schema: PgSchema;

beforeAll(async () => {
  schema = await createPgSchema("skein_schedule_news");
});

afterAll(async () => {
  await schema.drop();
});

/** A one-shot schedule `id` due at `at`. */
function row(id: string, at: number): ScheduleRow {
  return {
    id,
    cron: null,
    at,
    timezone: null,
    sessionId: "s",
    newSession: null,
    prompt: "p",
    missed: "skip",
    paused: false,
    nextFireAt: at,
    lastFiredAt: null,
    lastInputId: null,
    lastSessionId: null,
    createdAt: 1_000,
    budget: null,
  };
}

describe("schedule announcements (PostgreSQL)", () => {
  it("announces each committed change of a schedule, naming it, and nothing else", async () => {
    const storage = await freshPgSessionStorage(schema);
    // The channel is the whole database's: other suites' schedules are told apart by id.
    const id = `news-${randomBytes(6).toString("hex")}`;
    const heard: string[] = [];
    const listener = new pg.Client({ connectionString: schema.url });
    await listener.connect();
    try {
      listener.on("notification", (message) => {
        if (message.payload?.startsWith(id)) heard.push(message.payload);
      });
      await listener.query(`LISTEN ${schedulesChannel}`);
      const heardNow = (count: number) =>
        eventually(`${count} announcements`, () => (heard.length >= count ? heard.slice() : undefined));

      expect(await storage.createSchedule(row(id, 5_000))).toBe(true);
      expect(await heardNow(1)).toEqual([id]);
      expect(await storage.setSchedulePaused(id, true)).toBe(true);
      expect(await storage.setSchedulePaused(id, false)).toBe(true);
      expect(await heardNow(3)).toEqual([id, id, id]);

      // Nothing changed, or only a later next firing: no announcement.
      expect(await storage.createSchedule(row(id, 1))).toBe(false);
      expect(await storage.setSchedulePaused(`${id}-none`, true)).toBe(false);
      expect(await storage.deleteSchedule(`${id}-none`)).toBe(false);
      expect(await storage.advanceSchedule(id, 5_000, null, null)).toBe(true);
      // The removal after them is the fourth announcement, and the last (they come in commit order).
      expect(await storage.deleteSchedule(id)).toBe(true);
      await heardNow(4);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual([id, id, id, id]);
    } finally {
      await listener.end();
    }
  });
});
