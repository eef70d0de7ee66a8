/**
 * Session stream events as they travel: `{"type","sequence","data"}`, encoded to JSON exactly
 * once when published, so every watcher, every frame and every replay shares the same string.
 *
 * Boundary rule: plain data and pure encoders; no I/O, no timers, no feed state. The events'
 * types and payloads are the contract's (src/api/session-events.ts,
 * src/api/session-list-events.ts).
 */
import type { ResetReason, SessionEventType as SessionStreamEventType } from "../../api/session-events.js";
import type { SessionListEventType } from "../../api/session-list-events.js";

/** Types of the events a feed publishes: a session's, and those of the session list. */
export type SessionEventType = SessionStreamEventType | SessionListEventType;

/** The event types that carry streamed model output and are merged per frame. */
export type DeltaEventType = Extract<SessionStreamEventType, "text" | "thinking">;

/** One published event, already encoded; `bytes` is the UTF-8 length of `json` (window accounting). */
export interface EncodedEvent {
  readonly sequence: number;
  readonly json: string;
  readonly bytes: number;
}

/** Encodes a published event once; `type` is a fixed identifier, so only `data` needs escaping. */
export function encodeSessionEvent(type: SessionEventType, sequence: number, data: object): EncodedEvent {
  const json = `{"type":"${type}","sequence":${sequence},"data":${JSON.stringify(data)}}`;
  return { sequence, json, bytes: Buffer.byteLength(json, "utf8") };
}

/** The stream-level reset event (it has no sequence: it is not part of the feed). */
export function encodeResetEvent(reason: ResetReason): string {
  return `{"type":"reset","data":{"reason":"${reason}"}}`;
}
