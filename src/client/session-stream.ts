/**
 * Following an event stream of the daemon (a session's, or the session list's) across dropped
 * connections and daemon restarts.
 *
 * Boundary rule: this file owns reconnection and the resume cursor, nothing about rendering.
 * After every batch it remembers `{generation, cursor}`; when the connection ends or breaks it
 * re-reads daemon.json (a restarted daemon may have a new port or token) and reconnects with
 * `after_generation`/`after_seq`. The daemon then either replays exactly what was missed or
 * starts the batch with a reset and a snapshot; the caller sees both as ordinary batches, plus a
 * `disconnected` item when a connection is lost and `reconnected` before the first batch of the
 * next one. The first connection is not retried: its failure is the caller's to report.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createParser } from "eventsource-parser";
import type { SessionListQuery } from "../api/sessions.js";
import type { StreamCursor } from "../api/stream-cursor.js";
import { apiErrorFrom, DaemonApiError, DaemonUnreachableError } from "./api-errors.js";
import type { DaemonEndpoint } from "./daemon-endpoint.js";
import {
  type ClientAgents,
  isConnectionLost,
  isConnectionRefused,
  type OpenedStream,
  openEventStream,
  readBody,
} from "./http-exchange.js";
import {
  decodeBatch,
  decodeSessionListBatch,
  type SessionListBatch,
  type StreamBatch,
  StreamFrameError,
} from "./stream-batch.js";

/** What a follower yields: batches of type `B`, and news of the connection. */
export type FollowItem<B> =
  | { kind: "batch"; batch: B }
  /** The connection was lost; the follower is reconnecting. */
  | { kind: "disconnected"; reason: string }
  /** A new connection is up; its first batch follows. */
  | { kind: "reconnected"; downMs: number };

/** What a session follower yields. */
export type StreamItem = FollowItem<StreamBatch>;

/** What a session list follower yields. */
export type SessionListItem = FollowItem<SessionListBatch>;

/** Options every follower takes. */
export interface FollowStreamOptions {
  /** Resume after this position (null: an initial attach, which starts with a reset and a snapshot). */
  after?: StreamCursor | null;
  signal?: AbortSignal;
  /** Give up when no connection could be made for this long after a loss (default 60 s). */
  reconnectForMs?: number;
  /**
   * No byte (keepalives included) for this long counts as a lost connection (default 20 s); the
   * answer's head is waited for as long.
   */
  idleTimeoutMs?: number;
}

export interface FollowOptions extends FollowStreamOptions {
  /** History entries in a reset's snapshot (0..200; the daemon's default is 100). */
  tail?: number;
}

/** Following the session list: which sessions (see `GET /sessions`), from where. */
export interface FollowListOptions extends FollowStreamOptions, SessionListQuery {}

/** One stream to follow: where a connection resuming after a cursor goes, and how its frames decode. */
interface StreamTarget<B> {
  path(cursor: StreamCursor | null): string;
  decode(data: string): B;
}

/** What the follower needs from a client: the current endpoint, and a re-read of daemon.json. */
export interface StreamEndpointSource {
  readonly home: string | null;
  endpoint(): DaemonEndpoint;
  /** The connection pools of the source's other requests (a stream may reuse an idle connection). */
  readonly agents: ClientAgents;
  rediscover(): boolean;
  /** Start the daemon again if it crashed; true when it did (see DaemonClient). */
  restartCrashed?(): Promise<boolean>;
}

/** How often a follower may try to start a crashed daemon again. */
const restartEveryMs = 5_000;

/** Follow `sessionId` until `signal` aborts; throws when the session is gone or the daemon stays away. */
export function followSession(
  source: StreamEndpointSource,
  sessionId: string,
  options: FollowOptions = {},
): AsyncGenerator<StreamItem, void, undefined> {
  const target = {
    path: (cursor: StreamCursor | null) =>
      streamPath(`/sessions/${encodeURIComponent(sessionId)}`, cursor, tailQuery(options.tail)),
    decode: decodeBatch,
  };
  return followStream(source, target, options);
}

/** Follow the session list (`GET /sessions` as a stream) until `signal` aborts. */
export function followSessionList(
  source: StreamEndpointSource,
  options: FollowListOptions = {},
): AsyncGenerator<SessionListItem, void, undefined> {
  const query = listQuery(options);
  const target = {
    path: (cursor: StreamCursor | null) => streamPath("/sessions", cursor, query),
    decode: decodeSessionListBatch,
  };
  return followStream(source, target, options);
}

async function* followStream<B extends { generation: string; cursor: number }>(
  source: StreamEndpointSource,
  target: StreamTarget<B>,
  options: FollowStreamOptions,
): AsyncGenerator<FollowItem<B>, void, undefined> {
  const signal = options.signal;
  const reconnectForMs = options.reconnectForMs ?? 60_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 20_000;
  let cursor: StreamCursor | null = options.after ?? null;
  let lostAt: number | null = null;
  let attempt = 0;
  let everConnected = false;
  let restartedAt = 0;
  // A function, so that the check after an await is not narrowed away by the loop condition.
  const aborted = (): boolean => signal?.aborted === true;

  while (!aborted()) {
    let opened: OpenedStream;
    try {
      const path = target.path(cursor);
      // The answer's head is the stream's first data: a daemon too busy to send it is given the
      // idle timeout, as a stream that falls silent is (not the exchange's shorter default).
      opened = await openEventStream(source.endpoint(), source.agents, path, {}, idleTimeoutMs);
      if (opened.response.statusCode !== 200) {
        const status = opened.response.statusCode ?? 0;
        const error = apiErrorFrom(status, await readBody(opened.response), "GET", path.split("?")[0]!);
        // A new token (401) or a daemon still draining (503) heal by themselves after a restart.
        if (everConnected && (status === 401 || status === 503))
          throw new RetryableStreamError(error.message);
        throw error;
      }
    } catch (error) {
      if (!everConnected || !isRetryable(error)) throw error;
      lostAt ??= Date.now();
      if (Date.now() - lostAt > reconnectForMs) {
        throw new DaemonUnreachableError(
          source.home,
          `the stream could not be resumed for ${Math.round(reconnectForMs / 1000)} s`,
          {
            cause: error,
          },
        );
      }
      attempt += 1;
      await pause(Math.min(1000, 50 * 2 ** attempt), signal);
      // Nobody answers: a daemon that crashed is started again (one stopped on purpose is not).
      const nobody = isConnectionRefused(error) || error instanceof DaemonUnreachableError;
      if (nobody && source.restartCrashed !== undefined && Date.now() - restartedAt > restartEveryMs) {
        restartedAt = Date.now();
        if (await source.restartCrashed()) continue;
      }
      source.rediscover();
      continue;
    }
    everConnected = true;
    const reason = yield* readBatches(opened, target.decode, {
      signal,
      idleTimeoutMs,
      onBatch: (batch: B) => {
        cursor = { generation: batch.generation, sequence: batch.cursor };
      },
      onFirstBatch: () => {
        const downMs = lostAt === null ? null : Date.now() - lostAt;
        lostAt = null;
        attempt = 0;
        return downMs;
      },
    });
    if (aborted()) return;
    lostAt ??= Date.now();
    yield { kind: "disconnected", reason };
    source.rediscover();
  }
}

class RetryableStreamError extends Error {}

function isRetryable(error: unknown): boolean {
  return (
    error instanceof RetryableStreamError ||
    error instanceof DaemonUnreachableError ||
    isConnectionRefused(error) ||
    isConnectionLost(error) ||
    (error instanceof DaemonApiError && (error.status === 401 || error.status === 503))
  );
}

/** Yield the batches of one connection; returns why it ended. */
async function* readBatches<B>(
  opened: OpenedStream,
  decode: (data: string) => B,
  hooks: {
    signal: AbortSignal | undefined;
    idleTimeoutMs: number;
    onBatch(batch: B): void;
    /** Called before the first batch; returns how long the stream was down (null: first connection). */
    onFirstBatch(): number | null;
  },
): AsyncGenerator<FollowItem<B>, string, undefined> {
  const { request, response } = opened;
  const frames: string[] = [];
  const parser = createParser({ onEvent: (message) => frames.push(message.data) });
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = (): void => {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    idleTimer = setTimeout(
      () => request.destroy(new Error("no data or keepalive from the daemon")),
      hooks.idleTimeoutMs,
    );
  };
  const onAbort = (): void => {
    request.destroy();
  };
  hooks.signal?.addEventListener("abort", onAbort, { once: true });
  let first = true;
  let reason = "the daemon closed the stream";
  response.setEncoding("utf8");
  armIdle();
  try {
    for await (const chunk of response) {
      armIdle();
      parser.feed(chunk as string);
      while (frames.length > 0) {
        const batch = decode(frames.shift()!);
        hooks.onBatch(batch);
        if (first) {
          first = false;
          const downMs = hooks.onFirstBatch();
          if (downMs !== null) yield { kind: "reconnected", downMs };
        }
        yield { kind: "batch", batch };
      }
    }
  } catch (error) {
    // A frame this client cannot decode will not decode better after a reconnect.
    if (error instanceof StreamFrameError) throw error;
    reason = error instanceof Error ? error.message : String(error);
  } finally {
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    hooks.signal?.removeEventListener("abort", onAbort);
    request.destroy();
  }
  return reason;
}

/** `base` with the resume cursor (when there is one) and `extra` as its query. */
function streamPath(base: string, cursor: StreamCursor | null, extra: URLSearchParams): string {
  const query = new URLSearchParams(extra);
  if (cursor !== null) {
    query.set("after_generation", cursor.generation);
    query.set("after_seq", String(cursor.sequence));
  }
  const suffix = query.size > 0 ? `?${query.toString()}` : "";
  return `${base}${suffix}`;
}

function tailQuery(tail: number | undefined): URLSearchParams {
  return new URLSearchParams(tail === undefined ? {} : { tail: String(tail) });
}

/** The query of a session listing: `scope` and `parent_id` when given. */
export function listQuery(query: SessionListQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.scope !== undefined) params.set("scope", query.scope);
  if (query.parent_id !== undefined) params.set("parent_id", query.parent_id);
  return params;
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal === undefined ? undefined : { signal });
  } catch {
    // aborted: the loop condition ends the follower
  }
}
