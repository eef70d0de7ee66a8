/**
 * `GET /schedules` read page after page, for the callers that show every schedule: the CLI
 * (through the client library) and the web UI.
 *
 * Boundary rule: pure (the web UI bundles it); each request is the caller's `get`.
 */
import { maxSchedulePageSize } from "./schedule-page-size.js";
import type { Schedule, ScheduleList } from "./schedules.js";

/** Every schedule, oldest first: pages of the largest size, each read by `get`. */
export async function allSchedulePages(get: (path: string) => Promise<ScheduleList>): Promise<Schedule[]> {
  const schedules: Schedule[] = [];
  let next: string | null = null;
  do {
    const params = new URLSearchParams({ limit: String(maxSchedulePageSize) });
    if (next !== null) params.set("next", next);
    const page = await get(`/schedules?${params.toString()}`);
    schedules.push(...page.schedules);
    // A daemon from before pages sends no `next`: its one answer held every schedule.
    next = page.next ?? null;
  } while (next !== null);
  return schedules;
}
