/** What the stream-capable routes (`GET /sessions`, `GET /sessions/:id`) share about resuming. */
import type { StreamCursor, StreamResumeQuery } from "../../api/stream-cursor.js";
import { StreamCursorError } from "../errors.js";
import { problem } from "../http/problem.js";
import { parseStreamCursor, type StreamCursorQuery } from "../stream/cursor.js";

/** The `Last-Event-ID` header, as the OpenAPI document describes it. */
export const lastEventId = {
  name: "Last-Event-ID",
  description:
    "`<generation>.<sequence>`: resume the stream after it (instead of after_generation/after_seq)",
};

/** A JSON read names no replay position: those parameters are for streams only. */
export function rejectReplayParameters(query: StreamResumeQuery): void {
  if (query.after_generation !== undefined || query.after_seq !== undefined) {
    throw problem("invalid_request", "replay parameters require Accept: text/event-stream");
  }
}

/** Where a stream request resumes (null: an initial attach); a malformed cursor is a 400. */
export function streamCursorOf(query: StreamCursorQuery, lastEventId: unknown): StreamCursor | null {
  try {
    return parseStreamCursor(query, lastEventId);
  } catch (error) {
    if (error instanceof StreamCursorError) throw problem("invalid_request", error.detail);
    throw error;
  }
}
