/**
 * Decoding one stream frame's `data:` JSON into a `StreamBatch` (a session's stream) or a
 * `SessionListBatch` (the session list's).
 *
 * Boundary rule: pure. A leading reset event is split off with the frame's snapshot; event
 * types this client does not know (a newer daemon) are dropped from `events` but kept in `raw`.
 */
import type { ResetReason, SessionEvent, SessionEventType } from "../api/session-events.js";
import type { SessionListEvent, SessionListEventType } from "../api/session-list-events.js";
import type { SessionSnapshot } from "../api/session-snapshot.js";
import type { SessionList } from "../api/sessions.js";

/** One frame of a session's stream, with its reset (if any) split off the events. */
export interface StreamBatch {
  generation: string;
  cursor: number;
  /** Events after the reset, in order (event types this client does not know are dropped). */
  events: SessionEvent[];
  /** Present when the batch starts with a reset: rebuild the view from the snapshot. */
  reset: null | { reason: ResetReason; snapshot: SessionSnapshot };
  /** The frame's events exactly as received (reset included), for `--json` output. */
  raw: unknown[];
}

/** One frame of the session list's stream, with its reset (if any) split off the events. */
export interface SessionListBatch {
  generation: string;
  cursor: number;
  events: SessionListEvent[];
  /** Present when the batch starts with a reset: replace the list with `snapshot.items`. */
  reset: null | { reason: ResetReason; snapshot: SessionList };
  raw: unknown[];
}

// Records over every event type, so a type added to the contract cannot be left out here
// (a forgotten one was silently dropped by every client).
const sessionEventTypes: Record<SessionEventType, true> = {
  status: true,
  input: true,
  text: true,
  thinking: true,
  message: true,
  tool: true,
  retry: true,
  usage: true,
  committed: true,
  turn_completed: true,
  error: true,
  approval_requested: true,
  task_started: true,
  task_completed: true,
  approval_resolved: true,
  compaction_started: true,
  compaction_completed: true,
  compaction_failed: true,
};
const listEventTypes: Record<SessionListEventType, true> = {
  created: true,
  updated: true,
  status: true,
  deleted: true,
};
const knownTypes: ReadonlySet<string> = new Set(Object.keys(sessionEventTypes));
const knownListTypes: ReadonlySet<string> = new Set(Object.keys(listEventTypes));

const resetReasons: ReadonlySet<string> = new Set<ResetReason>([
  "initial",
  "generation_changed",
  "replay_unavailable",
]);

/** A frame that is not a batch. */
export class StreamFrameError extends Error {
  constructor(reason: string) {
    super(`malformed stream frame: ${reason}`);
    this.name = "StreamFrameError";
  }
}

/** Decode the JSON text of one `data:` line of a session's stream. */
export function decodeBatch(data: string): StreamBatch {
  return decodeFrame<SessionEvent, SessionSnapshot>(data, knownTypes);
}

/** Decode the JSON text of one `data:` line of the session list's stream. */
export function decodeSessionListBatch(data: string): SessionListBatch {
  const batch = decodeFrame<SessionListEvent, SessionList>(data, knownListTypes);
  if (batch.reset !== null && !Array.isArray(batch.reset.snapshot.items)) {
    throw new StreamFrameError("a list snapshot without items");
  }
  return batch;
}

/** A decoded frame whose events are of type `E` and whose reset snapshot is an `S`. */
interface DecodedFrame<E, S> {
  generation: string;
  cursor: number;
  /** Events of the known types, after the reset. */
  events: E[];
  reset: null | { reason: ResetReason; snapshot: S };
  raw: unknown[];
}

/** The frame's parts; events are kept when their type is `known`, and trusted to be `E` then. */
function decodeFrame<E, S>(data: string, known: ReadonlySet<string>): DecodedFrame<E, S> {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new StreamFrameError("not JSON");
  }
  if (typeof value !== "object" || value === null) throw new StreamFrameError("not an object");
  const frame = value as { generation?: unknown; cursor?: unknown; events?: unknown; snapshot?: unknown };
  if (typeof frame.generation !== "string") throw new StreamFrameError("no generation");
  if (typeof frame.cursor !== "number") throw new StreamFrameError("no cursor");
  if (!Array.isArray(frame.events)) throw new StreamFrameError("no events");
  const raw = frame.events as unknown[];
  let reset: DecodedFrame<E, S>["reset"] = null;
  const events: E[] = [];
  for (const item of raw) {
    if (typeof item !== "object" || item === null) continue;
    const event = item as { type?: unknown; data?: unknown };
    if (event.type === "reset") {
      const reason = (event.data as { reason?: unknown } | undefined)?.reason;
      if (typeof reason !== "string" || !resetReasons.has(reason))
        throw new StreamFrameError("bad reset reason");
      if (typeof frame.snapshot !== "object" || frame.snapshot === null) {
        throw new StreamFrameError("a reset without a snapshot");
      }
      reset = { reason: reason as ResetReason, snapshot: frame.snapshot as S };
      continue;
    }
    if (typeof event.type === "string" && known.has(event.type)) events.push(item as E);
  }
  return { generation: frame.generation, cursor: frame.cursor, events, reset, raw };
}
