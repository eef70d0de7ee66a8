/**
 * Every session, live: the session list's stream (`GET /sessions` as an event stream) folded
 * into a map by id.
 */
import { useEffect, useState } from "react";
import type { SessionSummary } from "../../../src/api/session-snapshot.js";
import { decodeSessionListBatch } from "../../../src/client/stream-batch.js";
import { type ConnectionState, EventStream } from "../stream/event-stream.js";

/** The sessions by id, and the state of the list stream's connection. */
export function useSessionList(): {
  sessions: ReadonlyMap<string, SessionSummary>;
  connection: ConnectionState;
} {
  const [sessions, setSessions] = useState<ReadonlyMap<string, SessionSummary>>(new Map());
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  useEffect(() => {
    const stream = new EventStream({
      path: "/sessions",
      onState: setConnection,
      onFrame: (data) => {
        const batch = decodeSessionListBatch(data);
        setSessions((current) => {
          const next = new Map(
            batch.reset === null ? current : batch.reset.snapshot.items.map((s) => [s.id, s]),
          );
          for (const event of batch.events) {
            switch (event.type) {
              case "created":
              case "updated":
                next.set(event.data.session.id, event.data.session);
                break;
              case "status": {
                const known = next.get(event.data.id);
                if (known !== undefined) next.set(event.data.id, { ...known, status: event.data.status });
                break;
              }
              case "deleted":
                next.delete(event.data.id);
                break;
              default: {
                const unknown: never = event;
                return unknown;
              }
            }
          }
          return next;
        });
      },
    });
    stream.start();
    return () => stream.close();
  }, []);
  return { sessions, connection };
}

/** Sessions, newest activity first. */
export function byActivity(sessions: ReadonlyMap<string, SessionSummary>): SessionSummary[] {
  return [...sessions.values()].sort((a, b) => b.activity_at.localeCompare(a.activity_at));
}
