/**
 * Pages of `GET /sessions`: the page a query asks for, and the `next` token of the page after.
 *
 * A token is the listing key of the last session of its page: `<activity_at ms>.<id in
 * base64url>`. The page after it is a keyset range (storage/sessions-table.ts), so reading page
 * N costs what reading the first one does. Activity moves a session to the top: one that
 * changes while a client pages may show twice or not at all (the list stream follows changes).
 */

import { defaultSessionPageSize } from "../../api/session-page-size.js";
import type { SessionSummary } from "../../api/session-snapshot.js";
import { problem } from "../http/problem.js";
import type { SessionListKey, SessionPage } from "../storage/sessions-table.js";

const tokenShape = /^(\d{1,16})\.([A-Za-z0-9_-]{1,200})$/;

/** The page a query's `limit` and `next` select; a malformed token is a 400 `invalid_request`. */
export function sessionPageOf(query: { limit?: number; next?: string }): SessionPage {
  const limit = query.limit ?? defaultSessionPageSize;
  return query.next === undefined ? { limit } : { limit, after: keyOf(query.next) };
}

/** The `next` token after `items` (the page's rows, one more fetched than shown), or null when none follows. */
export function nextToken(items: readonly SessionSummary[], limit: number): string | null {
  const last = items[limit - 1];
  if (items.length <= limit || last === undefined) return null;
  return `${Date.parse(last.activity_at)}.${Buffer.from(last.id, "utf8").toString("base64url")}`;
}

function keyOf(token: string): SessionListKey {
  const match = tokenShape.exec(token);
  const id = match === null ? "" : Buffer.from(match[2]!, "base64url").toString("utf8");
  // Decoding is lenient: a token that does not encode back to itself was not made here.
  if (match === null || Buffer.from(id, "utf8").toString("base64url") !== match[2])
    throw problem(
      "invalid_request",
      `next must be a token from an earlier GET /sessions page, got ${JSON.stringify(token.slice(0, 64))}`,
    );
  return { activityAt: Number(match[1]), id };
}
