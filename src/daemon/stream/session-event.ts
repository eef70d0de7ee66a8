/**
 * Session stream events as they travel: `{"type","sequence","data"}`, encoded to JSON exactly
 * once when published, so every watcher, every frame and every replay shares the same string.
 *
 * Boundary rule: plain data and pure encoders; no I/O, no timers, no feed state.
 */

/** Types of the events the session list's feeds publish besides `status`. */
export type SessionListEventType = "created" | "updated" | "deleted";

/** Types of the events a session publishes (spec §5), and those of the session list. */
export type SessionEventType =
  | SessionListEventType
  | "status"
  | "input"
  | "text"
  | "thinking"
  | "message"
  | "tool"
  | "retry"
  | "usage"
  | "committed"
  | "turn_completed"
  | "error";

/** The event types that carry streamed model output and are merged per frame. */
export type DeltaEventType = "text" | "thinking";

/** Why a batch starts with a reset instead of a replay. */
export type ResetReason = "initial" | "generation_changed" | "replay_unavailable";

/** A position in one session's event stream: the actor lifetime and the last sequence seen. */
export interface StreamCursor {
  readonly generation: string;
  readonly sequence: number;
}

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
