/**
 * A position in an event stream, as TypeBox schemas and the types derived from them: the
 * cursor a summary and a snapshot carry, and the query a stream request resumes with.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { closedObject, namedObject } from "./parts.js";

/**
 * A stream position: the lifetime of the feed that numbered the events (`generation`) and the
 * last sequence seen.
 */
export const StreamCursorSchema = namedObject("StreamCursor", {
  generation: Type.String(),
  sequence: Type.Integer({ minimum: 0 }),
});
export type StreamCursor = Static<typeof StreamCursorSchema>;

/** The fields a stream request resumes with (or the header `Last-Event-ID: <generation>.<sequence>`). */
export const streamResumeFields = {
  after_generation: Type.Optional(Type.String()),
  /** A decimal sequence number. */
  after_seq: Type.Optional(Type.String()),
};

const StreamResumeQuerySchema = closedObject(streamResumeFields);

/** The query a stream request resumes with. */
export type StreamResumeQuery = Static<typeof StreamResumeQuerySchema>;
