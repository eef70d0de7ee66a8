/**
 * The session list's event stream on the wire (`GET /sessions` with `Accept:
 * text/event-stream`), as TypeBox schemas and the types derived from them: a reset whose
 * snapshot is the listing, then one event per change of a listed session.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. The
 * daemon publishes them, a client decodes them
 * (src/client/stream-batch.ts).
 */
import { type Static, Type } from "typebox";
import { named } from "./named-schema.js";
import { closedObject, NullableString } from "./parts.js";
import { event, frame } from "./session-events.js";
import { SessionStatusSchema, SessionSummarySchema } from "./session-snapshot.js";
import { SessionListSchema } from "./sessions.js";

/** One published event of the session list. */
const SessionListEventSchema = named(
  "SessionListEvent",
  Type.Union([
    event("created", closedObject({ session: SessionSummarySchema }), "a session was created"),
    event("updated", closedObject({ session: SessionSummarySchema }), "a listed session changed"),
    event(
      "status",
      closedObject({ id: Type.String(), parent_id: NullableString, status: SessionStatusSchema }),
      "a session's status changed",
    ),
    event("deleted", closedObject({ id: Type.String(), parent_id: NullableString }), "a session was deleted"),
  ]),
);
export type SessionListEvent = Static<typeof SessionListEventSchema>;
export type SessionListEventType = SessionListEvent["type"];

/** The `data` of each event of the session list's stream. */
export type SessionListEventData = {
  [K in SessionListEventType]: Extract<SessionListEvent, { type: K }>["data"];
};

/** One frame of the session list's stream. */
export const SessionListStreamFrameSchema = named(
  "SessionListStreamFrame",
  frame(SessionListEventSchema, SessionListSchema),
);
export type SessionListStreamFrame = Static<typeof SessionListStreamFrameSchema>;
