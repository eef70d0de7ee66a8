/**
 * A session's event stream (`GET /sessions/{id}` with `Accept: text/event-stream`): the `data`
 * of each event type, the events themselves and the frames that carry them.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/session-events.ts);
 * the daemon publishes them, a client decodes them
 * (src/client/stream-batch.ts).
 */
export type {
  CompactionEventData,
  CompactionTriggerName,
  ResetEvent,
  ResetReason,
  SessionEvent,
  SessionEventData,
  SessionEventType,
  SessionStreamFrame,
} from "./schemas/session-events.js";
