/**
 * Pages of `GET /sessions`: the page a query asks for, and the `next` token of the page after.
 *
 * A token is the listing key of the last session of its page (listing-token.ts): its activity
 * time and id. The page after it is a keyset range (storage/sessions-table.ts). Activity moves a
 * session to the top: one that changes while a client pages may show twice or not at all (the
 * list stream follows changes).
 */

import { defaultSessionPageSize } from "../../api/session-page-size.js";
import type { SessionSummary } from "../../api/session-snapshot.js";
import type { SessionPage } from "../storage/sessions-table.js";
import { listingKeyOf, nextListingToken } from "./listing-token.js";

/** The page a query's `limit` and `next` select; a malformed token is a 400 `invalid_request`. */
export function sessionPageOf(query: { limit?: number; next?: string }): SessionPage {
  const limit = query.limit ?? defaultSessionPageSize;
  if (query.next === undefined) return { limit };
  const { at, id } = listingKeyOf(query.next, "GET /sessions");
  return { limit, after: { activityAt: at, id } };
}

/** The `next` token after `items` (the page's rows, one more fetched than shown), or null when none follows. */
export function nextToken(items: readonly SessionSummary[], limit: number): string | null {
  return nextListingToken(items, limit, (last) => ({ at: Date.parse(last.activity_at), id: last.id }));
}
