/**
 * The one function the session layer publishes its stream's events with, typed by the event
 * payloads of the contract (src/api/session-events.ts), so every event a client can receive has
 * a checked shape.
 *
 * Boundary rule: a thin typed wrapper over `SessionFeed.publish`; text and thinking deltas go
 * through `SessionFeed.publishDelta`, which merges them per frame.
 */
import type { SessionEventData } from "../../api/session-events.js";
import type { SessionFeed } from "../stream/session-feed.js";

/** Publish one event with the shape its type requires. */
export function publishEvent<T extends keyof SessionEventData>(
  feed: SessionFeed,
  type: T,
  data: SessionEventData[T],
): void {
  feed.publish(type, data);
}
