/**
 * The session list's event stream (`GET /sessions` with `Accept: text/event-stream`): one feed
 * per listing filter (all, top-level, one session's forks), each with its generation, sequence
 * and replay window, served by the same SSE machinery as a session's stream. A client gets a
 * reset with the list as its snapshot, then `created`, `updated`, `status` and `deleted` events,
 * and resumes after a reconnect from its cursor (or gets a reset with a fresh list).
 *
 * Boundary rule: in memory and synchronous. A feed exists only while someone watches it (and a
 * grace period after, so a reconnect can resume); with no feed, a change costs a map lookup.
 * `updated` events are coalesced per event-loop turn and carry the summary as it is when they
 * are published; every event is an upsert or removal keyed by session id, applied in order.
 */
import type { SessionListEventData } from "../../api/session-list-events.js";
import type { SessionStatus, SessionSummary } from "../../api/session-snapshot.js";
import type { SessionList as SessionListSnapshot } from "../../api/sessions.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import type { SessionListFilter, SessionRow } from "../storage/sessions-table.js";
import { sessionMatches } from "../storage/sessions-table.js";
import { SessionFeed, type SessionFeedOptions } from "../stream/session-feed.js";
import type { FirstBatch } from "../stream/sse-stream.js";

/** What the hub reads from the registry. */
export interface SessionListSource {
  /** The summaries `filter` selects, newest activity first. */
  list(filter: SessionListFilter): Promise<SessionSummary[]>;
  /** The current summary of one session, or null when it no longer exists. */
  summary(sessionId: string): Promise<SessionSummary | null>;
}

/** An opened list stream: the feed to serve and its first batch; call `closed` when the connection ends. */
export interface OpenedListStream {
  feed: SessionFeed;
  first: FirstBatch;
  closed(): void;
}

export interface SessionListHubOptions {
  feed?: SessionFeedOptions;
  /** How long an unwatched feed is kept for a reconnect to resume (default 60 s). */
  graceMs?: number;
}

interface ListFeed {
  filter: SessionListFilter;
  feed: SessionFeed;
  /** Set while nobody watches: drops the feed when it fires. */
  idleTimer: NodeJS.Timeout | null;
}

const defaultGraceMs = 60_000;

/** The feeds of the session list, one per filter someone watches. */
export class SessionListHub {
  readonly #source: SessionListSource;
  readonly #options: SessionListHubOptions;
  readonly #feeds = new Map<string, ListFeed>();
  /** Sessions whose summary changed since the last flush. */
  readonly #dirty = new Set<string>();
  #flush: NodeJS.Immediate | null = null;
  #closed = false;

  constructor(source: SessionListSource, options: SessionListHubOptions = {}) {
    this.#source = source;
    this.#options = options;
  }

  /** Number of live feeds (for tests and inspection). */
  get feedCount(): number {
    return this.#feeds.size;
  }

  /**
   * Open a stream of the listing `filter` after `after` (null: an initial attach): a replay of
   * the events since, or a reset whose snapshot is the listing now. The cursor is taken before
   * the listing is read, so an event after the cursor may repeat what the snapshot already shows
   * (events apply by session id), but none is ever missed.
   */
  async open(filter: SessionListFilter, after: StreamCursor | null): Promise<OpenedListStream> {
    const entry = this.#feedOf(filter);
    if (entry.idleTimer !== null) clearTimeout(entry.idleTimer);
    entry.idleTimer = null;
    const read = entry.feed.read(after);
    const first: FirstBatch =
      read.kind === "events"
        ? { cursor: read.cursor, events: read.events }
        : {
            cursor: read.cursor,
            events: [],
            reset: { reason: read.reason, snapshot: await this.#snapshot(filter) },
          };
    let done = false;
    return {
      feed: entry.feed,
      first,
      closed: () => {
        if (done) return;
        done = true;
        this.#release(entry);
      },
    };
  }

  /** A session was created. */
  async created(sessionId: string): Promise<void> {
    if (this.#feeds.size === 0) return;
    const session = await this.#source.summary(sessionId);
    if (session !== null) this.#publish(session.parent_id, "created", { session });
  }

  /** A session's summary changed (activity, preview, usage, input order): published once per turn of the event loop. */
  changed(sessionId: string): void {
    if (this.#feeds.size === 0) return;
    this.#dirty.add(sessionId);
    this.#flush ??= setImmediate(() => {
      void this.#publishChanges().catch(() => undefined);
    });
  }

  /** A session's status changed. */
  statusChanged(row: Pick<SessionRow, "id" | "parentId">, status: SessionStatus): void {
    if (this.#feeds.size === 0) return;
    this.#publish(row.parentId, "status", { id: row.id, parent_id: row.parentId, status });
  }

  /** A session was deleted. */
  deleted(row: Pick<SessionRow, "id" | "parentId">): void {
    this.#dirty.delete(row.id);
    if (this.#feeds.size === 0) return;
    this.#publish(row.parentId, "deleted", { id: row.id, parent_id: row.parentId });
  }

  /** Close every feed (their streams end) and stop publishing. */
  close(): void {
    this.#closed = true;
    if (this.#flush !== null) clearImmediate(this.#flush);
    this.#flush = null;
    this.#dirty.clear();
    for (const entry of this.#feeds.values()) {
      if (entry.idleTimer !== null) clearTimeout(entry.idleTimer);
      entry.feed.close();
    }
    this.#feeds.clear();
  }

  async #snapshot(filter: SessionListFilter): Promise<SessionListSnapshot> {
    return { items: await this.#source.list(filter) };
  }

  async #publishChanges(): Promise<void> {
    this.#flush = null;
    const ids = [...this.#dirty];
    this.#dirty.clear();
    for (const id of ids) {
      const session = await this.#source.summary(id);
      if (session !== null && !this.#closed) this.#publish(session.parent_id, "updated", { session });
    }
  }

  /** Publish to every feed whose filter selects a session with this parent. */
  #publish<T extends keyof SessionListEventData>(
    parentId: string | null,
    type: T,
    data: SessionListEventData[T],
  ): void {
    for (const entry of this.#feeds.values()) {
      if (sessionMatches({ parentId }, entry.filter)) entry.feed.publish(type, data);
    }
  }

  #feedOf(filter: SessionListFilter): ListFeed {
    const key = filterKey(filter);
    let entry = this.#feeds.get(key);
    if (entry === undefined || entry.feed.closed) {
      entry = { filter, feed: new SessionFeed(this.#options.feed), idleTimer: null };
      if (this.#closed) entry.feed.close();
      else this.#feeds.set(key, entry);
    }
    return entry;
  }

  /** A connection ended: once nobody watches the feed, drop it after the grace period. */
  #release(entry: ListFeed): void {
    if (entry.feed.watcherCount > 0 || entry.idleTimer !== null || entry.feed.closed) return;
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = null;
      if (entry.feed.watcherCount > 0) return;
      const key = filterKey(entry.filter);
      if (this.#feeds.get(key) === entry) this.#feeds.delete(key);
      entry.feed.close();
    }, this.#options.graceMs ?? defaultGraceMs);
    entry.idleTimer.unref();
  }
}

function filterKey(filter: SessionListFilter): string {
  return filter.kind === "children" ? `children:${filter.parentId}` : filter.kind;
}
