/**
 * The session list's event stream (`GET /sessions` with `Accept: text/event-stream`): a reset
 * whose snapshot is the listing, then one event per change of a listed session.
 *
 * Boundary rule: plain types in their wire shape (snake_case); the daemon publishes them
 * (src/daemon/actor/session-list-hub.ts), a client decodes them (src/client/stream-batch.ts).
 */
import type { SessionStatus, SessionSummary } from "./session-snapshot.js";

/** The `data` of each event of the session list's stream. */
export interface SessionListEventData {
  created: { session: SessionSummary };
  /** Activity, preview, usage or input order changed: the summary as it is now. */
  updated: { session: SessionSummary };
  status: { id: string; parent_id: string | null; status: SessionStatus };
  deleted: { id: string; parent_id: string | null };
}

export type SessionListEventType = keyof SessionListEventData;

/** One published event of the session list. */
export type SessionListEvent = {
  [K in SessionListEventType]: { type: K; sequence: number; data: SessionListEventData[K] };
}[SessionListEventType];
