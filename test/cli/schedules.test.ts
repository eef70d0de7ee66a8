/**
 * `skein schedule add|list|pause|resume|remove` against a real daemon: a schedule into a session
 * (named by a prefix) and a one-shot schedule into a new session per firing, listed, paused,
 * resumed, removed; refusals come back with the daemon's reason and a failing exit code; the
 * list shows every schedule, past one page of `GET /schedules`.
 */
import { describe, expect, it } from "vitest";
import { maxSchedulePageSize } from "../../src/api/schedule-page-size.js";
import { createSchedules, listingOrder } from "../e2e/support/bulk-schedules.js";
import { eventually } from "../e2e/support/fixture.js";
import { text } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";

interface Schedule {
  id: string;
  cron: string | null;
  timezone: string | null;
  session_id: string | null;
  new_session: { workspace: string; profile: string | null } | null;
  missed: string;
  paused: boolean;
  last_session_id: string | null;
  last_input_id: string | null;
}

describe("schedule commands", () => {
  const shared = useCliDaemon(() => text("scheduled answer"));

  async function stored(id: string): Promise<Schedule> {
    return (await shared.daemon.api(`/schedules/${id}`)).json<Schedule>();
  }

  it("adds a cron schedule for a session named by prefix, lists, pauses, resumes and removes it", async () => {
    const sessionId = await shared.daemon.createSession();
    const added = await shared.cli.run([
      "schedule",
      "add",
      "0 7 * * 1-5",
      "morning summary",
      "--session",
      sessionId.slice(0, 13),
      "--timezone",
      "Europe/Berlin",
      "--id",
      "mornings",
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^added schedule mornings, next firing \d{4}-/);
    expect(await stored("mornings")).toMatchObject({
      cron: "0 7 * * 1-5",
      timezone: "Europe/Berlin",
      session_id: sessionId,
      missed: "skip",
      paused: false,
    });
    const listed = await shared.cli.run(["schedule", "list"]);
    expect(listed.stdout).toContain(`mornings  "0 7 * * 1-5" Europe/Berlin  session ${sessionId}  next 20`);
    expect((await shared.cli.run(["schedule", "pause", "mornings"])).stdout).toBe(
      "paused schedule mornings\n",
    );
    expect((await stored("mornings")).paused).toBe(true);
    expect((await shared.cli.run(["schedule", "resume", "mornings"])).stdout).toBe(
      "resumed schedule mornings\n",
    );
    expect((await stored("mornings")).paused).toBe(false);
    expect((await shared.cli.run(["schedule", "rm", "mornings"])).stdout).toBe("removed schedule mornings\n");
    expect((await shared.daemon.api("/schedules/mornings")).status).toBe(404);
  });

  it("adds a one-shot schedule that fires once into a new session in the current directory", async () => {
    const at = new Date(Date.now() + 1_500).toISOString();
    const added = await shared.cli.run([
      "schedule",
      "add",
      at,
      "hello later",
      "--new",
      "--missed",
      "run_once",
      "--json",
    ]);
    expect(added.code, added.stderr).toBe(0);
    const schedule = JSON.parse(added.stdout) as Schedule;
    expect(schedule.new_session).toEqual({ workspace: shared.cli.workspace, profile: null });
    const fired = await eventually("the firing", async () => {
      const now = await stored(schedule.id);
      return now.last_session_id !== null ? now : undefined;
    });
    await shared.daemon.idle(fired.last_session_id!);
    const shown = await shared.cli.run(["show", fired.last_session_id!, "--no-pager"]);
    expect(shown.stdout).toContain("hello later");
    expect(shown.stdout).toContain("scheduled answer");
    const listed = await shared.cli.run(["schedule", "list"]);
    expect(listed.stdout).toContain(`(input ${fired.last_input_id}, turn completed)`);
  });

  it("refuses a bad cron expression or a missing target with the reason, storing nothing", async () => {
    const before = (await shared.daemon.api("/schedules")).json<{ schedules: Schedule[] }>().schedules.length;
    const bad = await shared.cli.run(["schedule", "add", "at dawn", "p", "--new"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('cron expression "at dawn" is invalid');
    const untargeted = await shared.cli.run(["schedule", "add", "0 7 * * *", "p"]);
    expect(untargeted.code).not.toBe(0);
    expect(untargeted.stderr).toContain("--session ID or --new");
    const after = (await shared.daemon.api("/schedules")).json<{ schedules: Schedule[] }>().schedules.length;
    expect(after).toBe(before);
  });

  it("lists every schedule, oldest first, past one page of GET /schedules", async () => {
    const created = await createSchedules(shared.daemon, "many", maxSchedulePageSize + 2);
    const listed = await shared.cli.run(["schedule", "list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout) as Schedule[]).map((schedule) => schedule.id);
    expect(ids.filter((id) => id.startsWith("many-"))).toEqual(listingOrder(created));
    expect(new Set(ids).size).toBe(ids.length);
    const lines = (await shared.cli.run(["schedule", "list"])).stdout.split("\n");
    expect(lines.filter((line) => line.startsWith("many-"))).toHaveLength(created.length);
  });
});
