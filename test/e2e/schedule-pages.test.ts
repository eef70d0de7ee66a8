/**
 * `GET /schedules` in pages against real daemons, on SQLite and on PostgreSQL: a walk with a
 * small `limit` meets every schedule exactly once, oldest first (creation time, then id); without `limit` a client gets the first page of the default size and the token of
 * the next; a bad `limit` or `next` is a 400 `invalid_request` and changes nothing. The walk the
 * CLI and the web UI make (api/schedule-pages.ts) shows every schedule past one of its pages.
 */
import { describe, expect, it } from "vitest";
import { defaultSchedulePageSize, maxSchedulePageSize } from "../../src/api/schedule-page-size.js";
import { allSchedulePages } from "../../src/api/schedule-pages.js";
import type { ScheduleList } from "../../src/api/schedules.js";
import { createSchedules, listingOrder } from "./support/bulk-schedules.js";
import { type DaemonHarness, databaseKinds } from "./support/daemon-harness.js";
import { useSharedFixture } from "./support/fixture.js";

async function page(app: DaemonHarness, query: string): Promise<ScheduleList> {
  const response = await app.api(`/schedules${query}`);
  expect(response.status, response.text).toBe(200);
  return response.json<ScheduleList>();
}

describe.each(databaseKinds)("the schedule listing's pages ($name)", ({ database }) => {
  const shared = useSharedFixture({ database });

  it("walks every schedule exactly once, oldest first, across pages of a small limit; without limit the first page of the default size", async () => {
    const { app } = shared;
    const created = await createSchedules(app, "walk", defaultSchedulePageSize + 7);
    const walked: string[] = [];
    let pages = 0;
    let next: string | null = null;
    do {
      const answer = await page(
        app,
        next === null ? "?limit=10" : `?limit=10&next=${encodeURIComponent(next)}`,
      );
      expect(answer.schedules.length).toBeLessThanOrEqual(10);
      walked.push(...answer.schedules.map((schedule) => schedule.id));
      next = answer.next ?? null;
      pages++;
    } while (next !== null);
    expect(walked).toEqual(listingOrder(created));
    expect(pages).toBe(Math.ceil(created.length / 10));

    const first = await page(app, "");
    expect(first.schedules.map((schedule) => schedule.id)).toEqual(walked.slice(0, defaultSchedulePageSize));
    expect(first.next).toEqual(expect.any(String));
    const rest = await page(app, `?next=${encodeURIComponent(first.next!)}`);
    expect(rest.schedules.map((schedule) => schedule.id)).toEqual(walked.slice(defaultSchedulePageSize));
    expect(rest.next).toBeNull();
  });

  it("refuses a bad limit or next with 400 invalid_request, and the listing stays as it was", async () => {
    const { app } = shared;
    await createSchedules(app, "bad", 3);
    const before = await page(app, `?limit=${maxSchedulePageSize}`);
    const token = (await page(app, "?limit=1")).next!;
    const queries = [
      "?limit=0",
      `?limit=${maxSchedulePageSize + 1}`,
      "?limit=two",
      "?next=nonsense",
      "?next=12.%2B%2B",
      `?next=${encodeURIComponent(`x${token}`)}`,
      "?page=2",
    ];
    for (const query of queries) {
      const refused = await app.api(`/schedules${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.json<{ code: string }>().code, query).toBe("invalid_request");
    }
    expect(await page(app, `?limit=${maxSchedulePageSize}`)).toEqual(before);
  });

  it("shows every schedule past one page of the walk the CLI and the web UI make", async () => {
    const { app } = shared;
    const created = await createSchedules(app, "all", maxSchedulePageSize + 3);
    const paths: string[] = [];
    const all = await allSchedulePages(async (path) => {
      paths.push(path);
      return page(app, path.slice("/schedules".length));
    });
    const ids = all.map((schedule) => schedule.id).filter((id) => id.startsWith("all-"));
    expect(ids).toEqual(listingOrder(created));
    expect(new Set(all.map((schedule) => schedule.id)).size).toBe(all.length);
    expect(paths).toHaveLength(2);
  });
});
