/**
 * A position in an event stream (a session's, or the session list's): the lifetime of the feed
 * that numbered the events and the last sequence seen. A client resumes with it
 * (`after_generation`/`after_seq`, or `Last-Event-ID: <generation>.<sequence>`).
 *
 * Boundary rule: a plain type of the wire.
 */

/** A stream position. */
export interface StreamCursor {
  readonly generation: string;
  readonly sequence: number;
}

/** The query a stream request resumes with (or the header `Last-Event-ID: <generation>.<sequence>`). */
export interface StreamResumeQuery {
  after_generation?: string;
  /** A decimal sequence number. */
  after_seq?: string;
}
