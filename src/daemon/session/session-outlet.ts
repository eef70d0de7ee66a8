/**
 * A session's outlet: what it tells the world with (its clients, the clock, the logger). The
 * log writer needs no more; the session port (session-port.ts) adds the log and the mailbox.
 */
import type { SessionEventData } from "../../api/session-events.js";
import type { SessionFeed } from "../stream/session-feed.js";
import type {
  NotificationPlanner,
  SessionEventObserver,
  SessionLogger,
  SessionMeter,
} from "./session-services.js";

/** What a session tells the world with: its clients, the clock, the logger (the log writer needs no more). */
export interface SessionOutlet {
  readonly sessionId: string;
  /** Tell the session's clients: one event on its stream, with the shape its type requires. */
  publish<T extends keyof SessionEventData>(type: T, data: SessionEventData[T]): void;
  /** The clock (ms since the epoch); tests may pin it. */
  now(): number;
  readonly logger: SessionLogger;
  /** Hears how long the session's commits took (absent: nobody measures). */
  readonly meter?: SessionMeter;
  /** The webhook deliveries a commit owes (absent: none configured). */
  readonly notifications?: NotificationPlanner;
}

/** The outlet of a session whose events go to `feed`. */
export function feedOutlet(
  sessionId: string,
  feed: SessionFeed,
  clock: () => number,
  logger: SessionLogger,
  observer?: SessionEventObserver,
  meter?: SessionMeter,
  notifications?: NotificationPlanner,
): SessionOutlet {
  return {
    ...(meter === undefined ? {} : { meter }),
    ...(notifications === undefined ? {} : { notifications }),
    sessionId,
    publish:
      observer === undefined
        ? (type, data) => feed.publish(type, data)
        : (type, data) => {
            feed.publish(type, data);
            observer(sessionId, type, data);
          },
    now: clock,
    logger,
  };
}
