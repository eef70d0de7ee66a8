/**
 * The one writer of a session's log: it owns the head (hash and position) and the replayed
 * state, chains new entries after the head, compare-and-appends them through the store (with
 * the caller's writes alongside, in the same transaction), and only then applies them to the
 * state. Memory therefore never holds a step the store did not accept, and there is exactly one
 * copy of the history: the one the replay keeps.
 *
 * Boundary rule: every append of a session goes through `appendEntries` (the library's save
 * functions and the daemon alike; `createLog` for a new log's first entries); a store conflict
 * or corruption propagates unchanged and leaves head and state as they were.
 */
import { applyEntry, collectState, emptyState } from "./collect-state.js";
import type { HashedEntry, LogEntry, PositionedEntry } from "./entries.js";
import { buildChain, hashEntry } from "./entry-hash.js";
import type { RestoredState } from "./restored-state.js";
import type { AlongsideWrites, AppendOptions, LogHead, Store } from "./store.js";

/** The writer's view of a session's log: which session, and the hash it last appended. */
export interface LogHeadRef {
  sessionId: string;
  hash: string | null;
}

/** An entry with the position it was (or will be) stored at. */
export interface PlacedEntry {
  position: number;
  entry: LogEntry;
}

/**
 * Chain `entries` after `head`, compare-and-append them, then advance `head` in place. The
 * single append path of the log layer.
 */
export async function appendEntries<Tx>(
  store: Store<Tx>,
  head: LogHeadRef,
  entries: readonly LogEntry[],
  alongside?: AlongsideWrites<Tx>,
  options?: AppendOptions,
): Promise<LogHead> {
  const stored = await store.append(head.sessionId, chainAfter(head.hash, entries), alongside, options);
  head.hash = stored.hash;
  return stored;
}

/**
 * Create a session's log: compare-and-append `entries` as its first ones (the log must be
 * empty), with `alongside` in the same transaction. Resolves once they are durable, with them as
 * stored: hashed and positioned from 0, what a verified read of the new log would return.
 */
export async function createLog<Tx>(
  store: Store<Tx>,
  sessionId: string,
  entries: readonly LogEntry[],
  alongside?: AlongsideWrites<Tx>,
): Promise<PositionedEntry[]> {
  const chain = chainAfter(null, entries);
  await store.append(sessionId, chain, alongside);
  return chain.map((hashed, position) => ({ ...hashed, position }));
}

/** `entries` hashed and chained after the entry whose hash is `hash` (null: none). */
function chainAfter(hash: string | null, entries: readonly LogEntry[]): HashedEntry[] {
  return entries.length === 1 ? [hashEntry(hash, entries[0]!)] : buildChain(hash, entries);
}

/** What a caller of `SessionWriter.append` may want to hear besides its result. */
export interface WriterAppendOptions {
  /**
   * Called once the store committed the entries, possibly before they are durable (see
   * `AppendOptions.onWritten`), with the writer already advanced: its state holds them. The
   * append itself resolves only once they are durable. It must not throw.
   */
  onWritten?: (placed: PlacedEntry[]) => void;
}

export class SessionWriter<Tx = unknown> {
  readonly #store: Store<Tx>;
  readonly #head: LogHeadRef;
  #position: number;
  readonly #state: RestoredState;

  private constructor(store: Store<Tx>, sessionId: string, head: LogHead | null, state: RestoredState) {
    this.#store = store;
    this.#head = { sessionId, hash: head?.hash ?? null };
    this.#position = head?.position ?? -1;
    this.#state = state;
  }

  /** A writer over a session's whole verified log (the store verifies it on read). */
  static async open<Tx>(store: Store<Tx>, sessionId: string): Promise<SessionWriter<Tx>> {
    return SessionWriter.fromEntries(store, sessionId, await store.readAll(sessionId));
  }

  /** A writer over entries already read and verified (e.g. by a caller that needs them too). */
  static fromEntries<Tx>(
    store: Store<Tx>,
    sessionId: string,
    entries: readonly PositionedEntry[],
  ): SessionWriter<Tx> {
    const last = entries[entries.length - 1];
    const state = entries.length === 0 ? emptyState() : collectState(entries);
    return new SessionWriter(store, sessionId, last ?? null, state);
  }

  /**
   * A writer over a state already restored (e.g. from a state checkpoint and the verified
   * entries after it, see tail-restore.ts) whose last entry is `head`; it owns `state` from now.
   */
  static fromState<Tx>(
    store: Store<Tx>,
    sessionId: string,
    head: LogHead,
    state: RestoredState,
  ): SessionWriter<Tx> {
    return new SessionWriter(store, sessionId, head, state);
  }

  /** A writer for a session that has no entries yet (its first append creates it). */
  static forNewSession<Tx>(store: Store<Tx>, sessionId: string): SessionWriter<Tx> {
    return new SessionWriter(store, sessionId, null, emptyState());
  }

  get sessionId(): string {
    return this.#head.sessionId;
  }

  /** Hash of the last entry; null before the first. */
  get headHash(): string | null {
    return this.#head.hash;
  }

  /** Position of the last entry; -1 before the first. */
  get position(): number {
    return this.#position;
  }

  /** The replayed state: read it, never change it (only appends do). */
  get state(): Readonly<RestoredState> {
    return this.#state;
  }

  /** Where `entries` would be stored if appended now. */
  placed(entries: readonly LogEntry[]): PlacedEntry[] {
    return entries.map((entry, i) => ({ position: this.#position + 1 + i, entry }));
  }

  /**
   * Append `entries` (with `alongside` in the same transaction), then advance the head and
   * replay them into the state. Resolves with the entries as placed, once they are durable; the
   * writer advances as soon as the store committed them (`options.onWritten` is told then).
   */
  async append(
    entries: readonly LogEntry[],
    alongside?: AlongsideWrites<Tx>,
    options: WriterAppendOptions = {},
  ): Promise<PlacedEntry[]> {
    if (entries.length === 0) return [];
    const placed = this.placed(entries);
    const head: LogHeadRef = { sessionId: this.#head.sessionId, hash: this.#head.hash };
    let advanced = false;
    const advance = (hash: string): void => {
      if (advanced) return;
      advanced = true;
      this.#head.hash = hash;
      this.#position += entries.length;
      for (const entry of entries) applyEntry(this.#state, entry);
      this.#state.head_hash = hash;
    };
    const onWritten = options.onWritten;
    await appendEntries(this.#store, head, entries, alongside, {
      onWritten: (stored) => {
        advance(stored.hash);
        onWritten?.(placed);
      },
    });
    // A store that never calls onWritten (one outside this package) is durable on return.
    advance(head.hash!);
    return placed;
  }
}
