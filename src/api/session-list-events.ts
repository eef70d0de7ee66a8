/**
 * The session list's event stream (`GET /sessions` with `Accept: text/event-stream`): a reset
 * whose snapshot is the listing, then one event per change of a listed session.
 *
 * Boundary rule: types only, each the static type of its schema
 * (schemas/session-list-events.ts); the daemon publishes them
 *, a client decodes them (src/client/stream-batch.ts).
 */
export type {
  SessionListEvent,
  SessionListEventData,
  SessionListEventType,
  SessionListStreamFrame,
} from "./schemas/session-list-events.js";
