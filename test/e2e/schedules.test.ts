/**
 * Schedules against real daemons: an every-second schedule fires into a session and its turns
 * run (each firing's input under the documented derived id, each admitted once), bad schedules
 * are refused with nothing stored, a one-shot time missed while the daemon was down runs once
 * with `run_once` and never with `skip`, and a daemon killed between firings loses and doubles
 * none of them after its restart (SQLite; on PostgreSQL a killed node's lease delays its
 * sessions, see the cluster case in schedules-cluster.test.ts). The scheduler sleeps until the
 * earliest firing (up to a minute on SQLite): a schedule created or removed meanwhile wakes it,
 * so a new one fires on time and a removed one never.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DaemonHarness, databaseKinds, sleep, userTexts } from "./support/daemon-harness.js";
import { eventually, useSharedFixture } from "./support/fixture.js";
import { documentedFiringId } from "./support/schedule-ids.js";

interface Schedule {
  id: string;
  paused: boolean;
  next_fire_at: string | null;
  last_fired_at: string | null;
  last_input_id: string | null;
  last_session_id: string | null;
  last_turn: { id: string; state: string } | null;
  created_at: string;
}

/** The firing times of an every-second schedule created at `createdAt`, through `last`. */
function secondsThrough(createdAt: string, last: string): number[] {
  const first = Math.floor(Date.parse(createdAt) / 1000) * 1000 + 1000;
  const times: number[] = [];
  for (let at = first; at <= Date.parse(last); at += 1000) times.push(at);
  return times;
}

async function schedule(app: DaemonHarness, id: string): Promise<Schedule> {
  const response = await app.api(`/schedules/${id}`);
  expect(response.status).toBe(200);
  return response.json<Schedule>();
}

/** Pause `id` and wait until no firing of it is in flight (its last firing stays put). */
async function pauseAndSettle(app: DaemonHarness, id: string): Promise<Schedule> {
  expect((await app.api(`/schedules/${id}`, { method: "PATCH", body: { paused: true } })).status).toBe(200);
  await sleep(1_500);
  return schedule(app, id);
}

/** Every firing through the schedule's last one was admitted once, under its derived id, and ran. */
async function expectEachFiringOnce(app: DaemonHarness, sessionId: string, s: Schedule, prompt: string) {
  const times = secondsThrough(s.created_at, s.last_fired_at ?? s.created_at);
  expect(times.length).toBeGreaterThanOrEqual(2);
  for (const at of times) {
    const receipt = await app.receipt(sessionId, documentedFiringId("input", s.id, at));
    expect(receipt.id).toBe(documentedFiringId("input", s.id, at));
  }
  await app.idle(sessionId);
  const texts = userTexts((await app.history(sessionId)).items).filter((text) => text === prompt);
  expect(texts.length).toBe(times.length);
}

describe.each(databaseKinds)("schedules ($name)", ({ database }) => {
  const shared = useSharedFixture({ database, answer: "ok", env: { SKEIN_LEASE_SECONDS: "2" } });

  it("fires an every-second schedule into a session, each firing once under its derived input id", async () => {
    const { app } = shared;
    const sessionId = await app.createSession();
    const created = await app.api("/schedules", {
      method: "POST",
      body: {
        id: "every-second",
        cron: "* * * * * *",
        session_id: sessionId,
        prompt: "tick",
        missed: "skip",
      },
    });
    expect(created.status).toBe(201);
    await eventually("three firings", async () => {
      const texts = userTexts((await app.history(sessionId)).items).filter((text) => text === "tick");
      return texts.length >= 3 ? texts : undefined;
    });
    const settled = await pauseAndSettle(app, "every-second");
    expect(settled.paused).toBe(true);
    expect(settled.last_session_id).toBe(sessionId);
    expect(settled.last_input_id).toBe(
      documentedFiringId("input", "every-second", Date.parse(settled.last_fired_at!)),
    );
    await expectEachFiringOnce(app, sessionId, settled, "tick");
    const listed = (await app.api("/schedules")).json<{ schedules: Schedule[] }>().schedules;
    const lastTurn = listed.find((s) => s.id === "every-second")?.last_turn;
    expect(lastTurn?.state).toBe("completed");
    expect(lastTurn?.id).toBe((await app.receipt(sessionId, settled.last_input_id!)).turn?.id);
    expect((await app.api("/schedules/every-second", { method: "DELETE" })).status).toBe(200);
    expect((await app.api("/schedules/every-second")).status).toBe(404);
  });

  it("refuses bad schedules with a problem naming what is wrong, and stores none of them", async () => {
    const { app } = shared;
    const sessionId = await app.createSession();
    const base = { session_id: sessionId, prompt: "p", missed: "skip" };
    const refused: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ ...base, cron: "every morning" }, 400, /cron expression "every morning" is invalid/],
      [{ ...base, cron: "0 7 * * *", timezone: "Mars/Olympus" }, 400, /IANA time zone/],
      [{ ...base, cron: "0 7 * * *", at: new Date().toISOString() }, 400, /exactly one of `cron` and `at`/],
      [{ ...base }, 400, /exactly one of `cron` and `at`/],
      [{ ...base, at: "1969-07-20T20:17:40Z" }, 400, /after 1970/],
      [{ ...base, cron: "0 7 * * *", missed: "sometimes" }, 400, /missed/],
      [{ ...base, cron: "0 7 * * *", session_id: "019a0000-0000-7000-8000-000000000000" }, 404, /not found/],
      [
        { cron: "0 7 * * *", new_session: { workspace: "/no/such/dir" }, prompt: "p", missed: "skip" },
        400,
        /not an existing directory/,
      ],
      [
        { ...base, cron: "0 7 * * *", new_session: { workspace: app.workspace } },
        400,
        /exactly one of `session_id`/,
      ],
      [{ ...base, cron: "0 7 * * *", prompt: "  " }, 400, /non-blank/],
    ];
    for (const [body, status, detail] of refused) {
      const answer = await app.api("/schedules", { method: "POST", body });
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.json<{ detail: string }>().detail).toMatch(detail);
    }
    const listed = (await app.api("/schedules")).json<{ schedules: Schedule[] }>().schedules;
    expect(listed.filter((s) => s.id !== "every-second")).toEqual([]);
    const twice = { id: "twice", cron: "0 7 * * *", session_id: sessionId, prompt: "p", missed: "skip" };
    expect((await app.api("/schedules", { method: "POST", body: twice })).status).toBe(201);
    const again = await app.api("/schedules", { method: "POST", body: twice });
    expect(again.status).toBe(409);
    expect(again.json<{ code: string }>().code).toBe("schedule_exists");
    expect((await app.api("/schedules/twice", { method: "DELETE" })).status).toBe(200);
  });

  it("runs a one-shot time missed while the daemon was down once with run_once, never with skip", async () => {
    const { app } = shared;
    const sessionId = await app.createSession();
    const workspace = mkdtempSync(join(tmpdir(), "skein-schedule-"));
    const at = new Date(Date.now() + 2_500).toISOString();
    const bodies = [
      { id: "once", at, session_id: sessionId, prompt: "missed once", missed: "run_once" },
      { id: "skipped", at, session_id: sessionId, prompt: "missed skipped", missed: "skip" },
      { id: "fresh", at, new_session: { workspace }, prompt: "in a new session", missed: "run_once" },
    ];
    for (const body of bodies) {
      expect((await app.api("/schedules", { method: "POST", body })).status).toBe(201);
    }
    await app.kill();
    // Past the time and the grace after it (10 s): missed, not merely late.
    await sleep(Date.parse(at) - Date.now() + 11_000);
    await app.boot();
    const once = await eventually("the run_once firing", async () => {
      const s = await schedule(app, "once");
      return s.last_input_id !== null ? s : undefined;
    });
    expect(once.last_input_id).toBe(documentedFiringId("input", "once", Date.parse(at)));
    expect(once.next_fire_at).toBeNull();
    const fresh = await eventually("the new session's firing", async () => {
      const s = await schedule(app, "fresh");
      return s.last_session_id !== null ? s : undefined;
    });
    expect(fresh.last_session_id).toBe(documentedFiringId("session", "fresh", Date.parse(at)));
    await app.idle(fresh.last_session_id!);
    expect(userTexts((await app.history(fresh.last_session_id!)).items)).toEqual(["in a new session"]);
    const skipped = await eventually("the skip", async () => {
      const s = await schedule(app, "skipped");
      return s.next_fire_at === null ? s : undefined;
    });
    expect(skipped.last_input_id).toBeNull();
    await app.idle(sessionId);
    expect(userTexts((await app.history(sessionId)).items)).toEqual(["missed once"]);
  }, 60_000);

  it("fires a one-shot schedule created while the scheduler sleeps within a second of its time", async () => {
    const { app } = shared;
    const sessionId = await app.createSession();
    // Nothing due for minutes: the scheduler's sleep is as long as it gets when the next one comes.
    await sleep(1_200);
    const at = Date.now() + 2_000;
    const body = { id: "soon", at: new Date(at).toISOString(), session_id: sessionId, prompt: "on time" };
    expect((await app.api("/schedules", { method: "POST", body: { ...body, missed: "skip" } })).status).toBe(
      201,
    );
    const firedAfter = await eventually(
      "the firing",
      async () => ((await schedule(app, "soon")).last_input_id !== null ? Date.now() - at : undefined),
      10_000,
      20,
    );
    expect(firedAfter).toBeLessThan(1_000);
    await app.idle(sessionId);
    expect(userTexts((await app.history(sessionId)).items)).toEqual(["on time"]);
    expect((await app.api("/schedules/soon", { method: "DELETE" })).status).toBe(200);
  });

  it("never fires a schedule removed before its time, and fires the next one created after it", async () => {
    const { app } = shared;
    const sessionId = await app.createSession();
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const body = { session_id: sessionId, missed: "run_once" };
    const removed = { ...body, id: "removed", at: at(1_000), prompt: "never" };
    expect((await app.api("/schedules", { method: "POST", body: removed })).status).toBe(201);
    expect((await app.api("/schedules/removed", { method: "DELETE" })).status).toBe(200);
    const kept = { ...body, id: "kept", at: at(2_000), prompt: "after the removal" };
    expect((await app.api("/schedules", { method: "POST", body: kept })).status).toBe(201);
    await eventually("the kept firing", async () =>
      (await schedule(app, "kept")).last_input_id !== null ? true : undefined,
    );
    await app.idle(sessionId);
    expect(userTexts((await app.history(sessionId)).items)).toEqual(["after the removal"]);
    expect((await app.api("/schedules/kept", { method: "DELETE" })).status).toBe(200);
  });

  it.runIf(database === "sqlite")(
    "loses and doubles no firing when the daemon is killed between firings and restarted",
    async () => {
      const { app } = shared;
      const sessionId = await app.createSession();
      const body = {
        id: "through-crash",
        cron: "* * * * * *",
        session_id: sessionId,
        prompt: "beat",
        missed: "run_once",
      };
      expect((await app.api("/schedules", { method: "POST", body })).status).toBe(201);
      for (let round = 0; round < 3; round++) {
        await sleep(1_300 + round * 170);
        await app.kill();
        await app.boot();
      }
      await sleep(1_500);
      const settled = await pauseAndSettle(app, "through-crash");
      await expectEachFiringOnce(app, sessionId, settled, "beat");
    },
    60_000,
  );
});
