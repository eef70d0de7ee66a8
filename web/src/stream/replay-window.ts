/**
 * The events a session's stream still holds in its replay window before a cursor: what a page
 * that attached mid-answer missed (the deltas of the answer and thinking being streamed, which
 * no snapshot holds). Read once, with its own EventSource resuming after an earlier sequence.
 */
import type { SessionEvent } from "../../../src/api/session-events.js";
import type { StreamCursor } from "../../../src/api/stream-cursor.js";
import { decodeBatch } from "../../../src/client/stream-batch.js";

/** How far back to ask: the daemon's replay window holds at most 256 events. */
const windowEvents = 256;

/** Give up after this long (the page then shows what streams from the cursor on). */
const timeoutMs = 5_000;

/**
 * The events of the stream at `path` up to and including `through`, from as far back as the
 * replay window reaches; null when the window no longer holds them (a reset) or the read fails.
 */
export function readReplayWindow(path: string, through: StreamCursor): Promise<SessionEvent[] | null> {
  const after = Math.max(0, through.sequence - windowEvents);
  const wanted = through.sequence - after;
  if (wanted <= 0) return Promise.resolve([]);
  const query = new URLSearchParams({ after_generation: through.generation, after_seq: String(after) });
  return new Promise((done) => {
    const source = new EventSource(`${path}${path.includes("?") ? "&" : "?"}${query}`);
    const events: SessionEvent[] = [];
    let received = 0;
    const finish = (result: SessionEvent[] | null): void => {
      window.clearTimeout(timer);
      source.close();
      done(result);
    };
    const timer = window.setTimeout(() => finish(null), timeoutMs);
    source.onmessage = (message: MessageEvent<string>) => {
      let batch: ReturnType<typeof decodeBatch>;
      try {
        batch = decodeBatch(message.data);
      } catch {
        finish(null);
        return;
      }
      if (batch.reset !== null) {
        finish(null);
        return;
      }
      // Sequences are consecutive from `after + 1`; the frame's `raw` counts the events this
      // client does not know too.
      for (const [index, event] of batch.events.entries()) {
        if (received + index < wanted) events.push(event);
      }
      received += batch.raw.length;
      if (received >= wanted) finish(events);
    };
    source.onerror = () => finish(null);
  });
}
