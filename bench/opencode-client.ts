/**
 * One one-shot session on an `opencode serve` through its HTTP API, as its own clients make one:
 * subscribe to the instance's event stream (`GET /event`), create a session (`POST /session`),
 * send the prompt (`POST /session/{id}/prompt_async`), wait for the session's `session.idle`,
 * close the stream. Every request names the workspace (`?directory=`).
 */
import { request as httpRequest } from "node:http";
import { rawRequest } from "../test/e2e/support/daemon-harness.js";
import { now } from "./daemon-support.js";
import { readSseFrames } from "./sse-frames.js";

/** Where a one-shot client reaches an opencode server. */
export interface OpencodeEndpoint {
  port: number;
  workspace: string;
}

/** What the client saw of one one-shot session (wall-clock ms, the fake provider's clock). */
export interface OneShotSeen {
  /** From the prompt sent to the session's first text delta on the stream; null when none came. */
  firstTextMs: number | null;
  /** From the stream's subscription to the session's idle. */
  totalMs: number;
}

/** Thrown when a route answers other than it should. */
export class OpencodeApiError extends Error {
  constructor(route: string, status: number, body: string) {
    super(`opencode ${route}: ${status} ${body.slice(0, 500)}`);
  }
}

interface StreamEvent {
  type: string;
  properties: { sessionID?: string; field?: string };
}

/** The instance's event stream; `until` sees each event and says when the wait is over. */
export interface EventStream {
  /** Resolves when `until` returned true for an event (at most one wait armed at a time). */
  wait(until: (event: StreamEvent, at: number) => boolean): Promise<void>;
  close(): void;
}

/** Subscribe to the instance's event stream; resolves once its first frame arrived. */
export function subscribe(server: OpencodeEndpoint): Promise<EventStream> {
  return new Promise((attached, failed) => {
    let until: ((event: StreamEvent, at: number) => boolean) | null = null;
    let done: () => void = () => {};
    let first = true;
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: server.port,
        path: `/event?directory=${encodeURIComponent(server.workspace)}`,
        headers: { accept: "text/event-stream" },
      },
      (res) =>
        readSseFrames(res, (_frame, data) => {
          if (first) {
            // The first frame is `server.connected`: from here on the session's events reach us.
            first = false;
            attached({
              wait: (check) =>
                new Promise<void>((resolve) => {
                  until = check;
                  done = resolve;
                }),
              close: () => req.destroy(),
            });
            return;
          }
          if (until === null) return;
          if (until(JSON.parse(data) as StreamEvent, now())) {
            until = null;
            done();
          }
        }),
    );
    req.on("error", failed);
    req.end();
  });
}

async function post(server: OpencodeEndpoint, path: string, body: unknown): Promise<string> {
  const separator = path.includes("?") ? "&" : "?";
  const answer = await rawRequest(server.port, {
    method: "POST",
    path: `${path}${separator}directory=${encodeURIComponent(server.workspace)}`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (answer.status !== 200 && answer.status !== 204)
    throw new OpencodeApiError(path, answer.status, answer.text);
  return answer.text;
}

/**
 * One one-shot session: subscribe, create, prompt "hi", wait for idle, unsubscribe; or, given a
 * subscription kept for the server's life, the same on it without subscribing.
 */
export async function opencodeOneShot(server: OpencodeEndpoint, kept?: EventStream): Promise<OneShotSeen> {
  const start = now();
  const stream = kept ?? (await subscribe(server));
  try {
    const session = (JSON.parse(await post(server, "/session", {})) as { id: string }).id;
    let firstTextAt: number | null = null;
    const idle = stream.wait((event, at) => {
      if (event.properties.sessionID !== session) return false;
      if (firstTextAt === null && event.type === "message.part.delta" && event.properties.field === "text")
        firstTextAt = at;
      return event.type === "session.idle";
    });
    const sentAt = now();
    await post(server, `/session/${session}/prompt_async`, { parts: [{ type: "text", text: "hi" }] });
    await idle;
    const textAt: number | null = firstTextAt;
    return { firstTextMs: textAt === null ? null : textAt - sentAt, totalMs: now() - start };
  } finally {
    if (kept === undefined) stream.close();
  }
}
