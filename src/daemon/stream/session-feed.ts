/**
 * One session actor's event feed: its generation, its contiguous sequence, its replay window,
 * delta merging, and its watchers. A watcher has at most one wake outstanding: publishing wakes
 * every armed watcher once; it is re-armed only when it reports what it consumed. So however
 * fast events are published, a watcher costs one wake per read, and a slow one costs nothing.
 *
 * Boundary rule: in memory and synchronous; no I/O. Wake and close callbacks run inside
 * publish()/consumed()/close() and must be cheap (schedule work, do not do it) and must not
 * publish to the same feed.
 */
import { randomBytes } from "node:crypto";
import type { ResetReason } from "../../api/session-events.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import { DeltaMerger } from "./delta-merger.js";
import {
  type DeltaEventType,
  type EncodedEvent,
  encodeSessionEvent,
  type SessionEventType,
} from "./encoded-event.js";
import { ReplayWindow } from "./replay-window.js";

/** Bounds and timing of a feed. */
export interface SessionFeedOptions {
  /** Replay window event limit (default 256). */
  windowMaxEvents?: number;
  /** Replay window byte limit (default 4 MiB). */
  windowMaxBytes?: number;
  /** Delta merging frame in milliseconds (default 16). */
  frameMs?: number;
  /** Most UTF-16 code units of text in one delta event (default 65536). */
  deltaMaxUnits?: number;
}

/** What a read returns: the events after the cursor, or a reset when they cannot be replayed. */
export type FeedRead =
  | { readonly kind: "events"; readonly cursor: number; readonly events: EncodedEvent[] }
  | { readonly kind: "reset"; readonly cursor: number; readonly reason: ResetReason };

/** A registered watcher of a feed. */
export interface FeedWatcher {
  /** Reports that everything through `cursor` was read; re-arms the wake (or wakes at once if the feed moved on). */
  consumed(cursor: number): void;
  /** Detaches the watcher; its close callback is not called. */
  close(): void;
  /** True once detached or once the feed closed. */
  readonly closed: boolean;
}

const DEFAULT_FRAME_MS = 16;

/** A fresh generation: 16 random bytes as unpadded base64url (22 characters). */
export function newGeneration(): string {
  return randomBytes(16).toString("base64url");
}

/** The event feed of one session actor lifetime. */
export class SessionFeed {
  readonly generation: string = newGeneration();
  private lastSequence = 0;
  private readonly window: ReplayWindow;
  private readonly merger: DeltaMerger;
  private readonly watchers = new Set<Watcher>();
  /** Watchers with no wake outstanding (a subset of `watchers`). */
  private armed = new Set<Watcher>();
  private isClosed = false;
  private readonly host: WatcherHost = {
    rearm: (watcher, cursor) => this.rearm(watcher, cursor),
    detach: (watcher) => this.detach(watcher),
  };

  constructor(options: SessionFeedOptions = {}) {
    this.window = new ReplayWindow({ maxEvents: options.windowMaxEvents, maxBytes: options.windowMaxBytes });
    this.merger = new DeltaMerger(
      options.frameMs ?? DEFAULT_FRAME_MS,
      (type, data) => this.append(type, data),
      options.deltaMaxUnits,
    );
  }

  /** Sequence of the last published event (0 before the first). */
  get sequence(): number {
    return this.lastSequence;
  }

  /** True after close(). */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Number of attached watchers. */
  get watcherCount(): number {
    return this.watchers.size;
  }

  /** Sequence of the oldest event the replay window still holds (sequence+1 when empty). */
  get oldestReplayable(): number {
    return this.window.oldest;
  }

  /** Publishes one event, after any merged deltas still waiting (order is preserved). */
  publish(type: SessionEventType, data: object): void {
    this.merger.flush();
    this.append(type, data);
  }

  /** Publishes a streamed delta: at once after a quiet frame, otherwise merged until the frame closes. */
  publishDelta(type: DeltaEventType, turnId: string, messageId: string, text: string): void {
    this.merger.add(type, turnId, messageId, text);
  }

  /** Publishes merged deltas that are waiting for their frame to close. */
  flushDeltas(): void {
    this.merger.flush();
  }

  /** The events after `after`, or a reset (initial, generation_changed, replay_unavailable) and the current cursor. */
  read(after: StreamCursor | null): FeedRead {
    const cursor = this.lastSequence;
    if (after === null) return { kind: "reset", cursor, reason: "initial" };
    if (after.generation !== this.generation) return { kind: "reset", cursor, reason: "generation_changed" };
    const events = this.window.since(after.sequence, cursor);
    if (events === null) return { kind: "reset", cursor, reason: "replay_unavailable" };
    return { kind: "events", cursor, events };
  }

  /**
   * Attaches a watcher, armed: the next publish calls `wake` once. On a closed feed the watcher
   * comes back already closed and neither callback is ever called.
   */
  watch(wake: () => void, onClose?: () => void): FeedWatcher {
    const watcher = new Watcher(this.host, wake, onClose);
    if (this.isClosed) {
      watcher.detached = true;
      return watcher;
    }
    this.watchers.add(watcher);
    this.armed.add(watcher);
    return watcher;
  }

  /** Ends the feed: merged deltas are published, then every watcher is detached and its close callback runs. */
  close(): void {
    if (this.isClosed) return;
    this.merger.stop();
    this.isClosed = true;
    const watchers = [...this.watchers];
    this.watchers.clear();
    this.armed.clear();
    for (const watcher of watchers) {
      watcher.detached = true;
      watcher.notifyClosed();
    }
  }

  private rearm(watcher: Watcher, cursor: number): void {
    if (watcher.detached) return;
    if (this.lastSequence > cursor) {
      this.armed.delete(watcher);
      this.wakeOne(watcher);
      return;
    }
    this.armed.add(watcher);
  }

  private detach(watcher: Watcher): void {
    this.watchers.delete(watcher);
    this.armed.delete(watcher);
  }

  private append(type: SessionEventType, data: object): void {
    const sequence = this.lastSequence + 1;
    this.window.push(encodeSessionEvent(type, sequence, data));
    this.lastSequence = sequence;
    if (this.armed.size === 0) return;
    const waking = this.armed;
    this.armed = new Set();
    for (const watcher of waking) this.wakeOne(watcher);
  }

  private wakeOne(watcher: Watcher): void {
    try {
      watcher.wake();
    } catch {
      // A broken watcher must not break publishing (a slow or failing client never slows
      // the model); it is detached and gets no further wakes.
      watcher.close();
    }
  }
}

/** What a watcher may ask of its feed. */
interface WatcherHost {
  rearm(watcher: Watcher, cursor: number): void;
  detach(watcher: Watcher): void;
}

/** A watcher's state; only the feed and the watcher itself change it. */
class Watcher implements FeedWatcher {
  detached = false;

  constructor(
    private readonly feed: WatcherHost,
    readonly wake: () => void,
    private readonly onClose: (() => void) | undefined,
  ) {}

  get closed(): boolean {
    return this.detached;
  }

  consumed(cursor: number): void {
    this.feed.rearm(this, cursor);
  }

  close(): void {
    if (this.detached) return;
    this.detached = true;
    this.feed.detach(this);
  }

  notifyClosed(): void {
    try {
      this.onClose?.();
    } catch {
      // The feed is closing every watcher; one failing callback must not stop the others.
    }
  }
}
