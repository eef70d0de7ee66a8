/**
 * Many schedules at once for listing tests: far-future one-shot schedules made through
 * `POST /schedules` (a batch at a time), and the order `GET /schedules` lists them in.
 */
import { expect } from "vitest";
import type { DaemonHarness } from "./daemon-harness.js";

/** A schedule as a listing test reads it. */
export interface ListedSchedule {
  id: string;
  created_at: string;
}

/**
 * Create schedules `prefix-<n>` for n = count-1 down to 0, so their ids run against their
 * creation order; 25 requests at a time (many then share a creation millisecond).
 */
export async function createSchedules(
  app: DaemonHarness,
  prefix: string,
  count: number,
): Promise<ListedSchedule[]> {
  const created: ListedSchedule[] = [];
  const numbers = Array.from({ length: count }, (_, i) => count - 1 - i);
  for (let start = 0; start < numbers.length; start += 25) {
    const batch = numbers.slice(start, start + 25).map(async (n) => {
      const response = await app.api("/schedules", {
        method: "POST",
        body: {
          id: `${prefix}-${String(n).padStart(4, "0")}`,
          at: "2099-01-01T00:00:00Z",
          new_session: { workspace: app.workspace },
          prompt: "later",
          missed: "skip",
        },
      });
      expect(response.status, response.text).toBe(201);
      return response.json<ListedSchedule>();
    });
    created.push(...(await Promise.all(batch)));
  }
  return created;
}

/** The ids of `schedules` in the listing's order: oldest first, then by id. */
export function listingOrder(schedules: readonly ListedSchedule[]): string[] {
  return [...schedules]
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : 1))
    .map((schedule) => schedule.id);
}
