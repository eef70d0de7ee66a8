/** `GET /sessions` read page after page, for callers that want every session the query selects. */
import { maxSessionPageSize } from "../api/session-page-size.js";
import type { SessionSummary } from "../api/session-snapshot.js";
import type { SessionList, SessionListQuery } from "../api/sessions.js";
import { DaemonProtocolError } from "./api-errors.js";
import { listQuery } from "./session-stream.js";

/** Every summary `query` selects, newest activity first: pages of the largest size, each `get` one. */
export async function allSessionPages(
  query: SessionListQuery,
  get: (path: string) => Promise<SessionList>,
): Promise<SessionSummary[]> {
  const items: SessionSummary[] = [];
  let next: string | null = null;
  do {
    const params = listQuery(query);
    params.set("limit", String(maxSessionPageSize));
    if (next !== null) params.set("next", next);
    const answer = await get(`/sessions?${params.toString()}`);
    if (!Array.isArray(answer.items)) throw new DaemonProtocolError("GET", "/sessions", "no items array");
    items.push(...answer.items);
    // A daemon from before pages sends no `next`: its one answer held every session.
    next = answer.next ?? null;
  } while (next !== null);
  return items;
}
