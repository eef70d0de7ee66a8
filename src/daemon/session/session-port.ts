/**
 * The session port: the one interface a session's actor lends the parts that do its work (the
 * turn scheduler and each turn's run, the approval gate, the compactor, the input queue): the
 * session's log (read its replay, commit), its clients (publish), its mailbox (serialize), the
 * clock and the logger. The actor builds it once (actor/session-actor.ts); a part is tested alone
 * against a small port of its own (test/daemon/session/test-port.ts).
 *
 * Boundary rule: the log is appended only through `log`, events reach clients only through
 * `publish` (typed by the contract's payloads, src/api/session-events.ts), and whatever appends
 * runs inside `serialize`, one task at a time, so a snapshot and the cursor sent with it agree.
 */
import type { DeltaEventType } from "../stream/encoded-event.js";
import type { SessionFeed } from "../stream/session-feed.js";
import type { SessionLogWriter } from "./session-log-writer.js";
import type { SessionOutlet } from "./session-outlet.js";

/** The one interface a session's parts are given. */
export interface SessionPort extends SessionOutlet {
  /** The session's log: its replay, and the one way to append to it. */
  readonly log: SessionLogWriter;
  /** A streamed text or thinking delta (merged per frame; live only, never logged). */
  publishDelta(type: DeltaEventType, turnId: string, messageId: string, text: string): void;
  /** Send the deltas merged so far now (before a step's entries are published). */
  flushDeltas(): void;
  /** Run `task` in the session's mailbox: after every task queued before it, alone. */
  serialize<T>(task: () => Promise<T> | T): Promise<T>;
}

/** The port over `outlet`'s feed, `log` and the mailbox `serialize` runs tasks in. */
export function feedPort(
  outlet: SessionOutlet,
  feed: SessionFeed,
  log: SessionLogWriter,
  serialize: <T>(task: () => Promise<T> | T) => Promise<T>,
): SessionPort {
  // A plain object literal (no getter): one with an accessor is kept in slower, larger
  // dictionary mode, and every loaded session holds one.
  return {
    sessionId: outlet.sessionId,
    publish: outlet.publish,
    now: outlet.now,
    logger: outlet.logger,
    log,
    publishDelta: (type, turnId, messageId, text) => feed.publishDelta(type, turnId, messageId, text),
    flushDeltas: () => feed.flushDeltas(),
    serialize,
  };
}
