/**
 * What the stream-capable routes (`GET /sessions`, `GET /sessions/:id`) share: their answer (JSON,
 * or an event stream), their documentation and resuming.
 */
import type { TSchema } from "typebox";
import type { StreamCursor, StreamResumeQuery } from "../../api/stream-cursor.js";
import { StreamCursorError } from "../errors.js";
import { problem } from "../http/problem.js";
import { parseStreamCursor, type StreamCursorQuery } from "../stream/cursor.js";

/** The `Last-Event-ID` header, as the OpenAPI document describes it. */
const lastEventId = {
  name: "Last-Event-ID",
  description:
    "`<generation>.<sequence>`: resume the stream after it (instead of after_generation/after_seq)",
};

/** The 200 answer of a stream-capable route: `json`, or (Accept: text/event-stream) frames of `frame`. */
export function jsonOrStreamAnswer(description: string, json: TSchema, frame: TSchema) {
  return {
    200: {
      description,
      content: { "application/json": { schema: json }, "text/event-stream": { schema: frame } },
    },
  };
}

/** The config of a stream-capable route: an event stream, resumable by `Last-Event-ID`. */
export function streamRouteConfig(summary: string) {
  return { eventStream: true, doc: { summary, headers: [lastEventId] } };
}

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
