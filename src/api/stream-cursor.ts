/**
 * A position in an event stream (a session's, or the session list's): the lifetime of the feed
 * that numbered the events and the last sequence seen. A client resumes with it
 * (`after_generation`/`after_seq`, or `Last-Event-ID: <generation>.<sequence>`).
 *
 * Boundary rule: types only, each the static type of its schema (schemas/stream-cursor.ts).
 */
export type { StreamCursor, StreamResumeQuery } from "./schemas/stream-cursor.js";
