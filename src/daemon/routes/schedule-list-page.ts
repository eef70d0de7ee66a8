/**
 * Pages of `GET /schedules`, oldest first: the page a query asks for, and the `next` token of the
 * page after.
 *
 * A token is the listing key of the last schedule of its page (listing-token.ts): its creation
 * time and id, neither of which ever changes, so a client paging meets every schedule that
 * exists throughout exactly once. The page after it is a keyset range (storage/schedules-table.ts).
 */
import { defaultSchedulePageSize } from "../../api/schedule-page-size.js";
import type { ScheduleListQuery } from "../../api/schedules.js";
import type { SchedulePage, ScheduleRow } from "../storage/schedules-table.js";
import { listingKeyOf, nextListingToken } from "./listing-token.js";

/** The page a query's `limit` and `next` select; a malformed token is a 400 `invalid_request`. */
export function schedulePageOf(query: ScheduleListQuery): SchedulePage {
  const limit = query.limit ?? defaultSchedulePageSize;
  if (query.next === undefined) return { limit };
  const { at, id } = listingKeyOf(query.next, "GET /schedules");
  return { limit, after: { createdAt: at, id } };
}

/** The `next` token after `rows` (the page's rows, one more read than shown), or null when none follows. */
export function nextScheduleToken(rows: readonly ScheduleRow[], limit: number): string | null {
  return nextListingToken(rows, limit, (last) => ({ at: last.createdAt, id: last.id }));
}
