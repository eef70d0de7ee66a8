/**
 * A loaded session's log, as its actor writes it: the log's `SessionWriter` (head, position,
 * replayed state) plus what the daemon keeps beside each append in the same transaction (turn
 * and input rows, the preview, the activity time), and what it tells clients once an append
 * has committed (one `message` event per history entry, then `committed`). A turn's last step
 * may be held (`hold`): it is committed with the next append, which is the turn's end, so a
 * plain turn's answer and its end share one transaction.
 *
 * Boundary rule: the session's only way to write its log. Once the stored log is found changed
 * behind the daemon (a read that fails verification, a head that is not where this writer left
 * it, another writer's append) the session is corrupt: nothing more is written, ever, by this
 * actor; the error is kept and thrown again. A head moved on because the session has another
 * owner now (a cluster takeover) is no corruption: that is reported as a fenced writer.
 */

import type { SessionPreview } from "../../api/session-snapshot.js";
import { ChainCheckpoints } from "../../log/chain-checkpoints.js";
import type { RestoredState } from "../../log/collect-state.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import { AppendConflictError, LogCorruptError } from "../../log/errors.js";
import type { PlacedEntry } from "../../log/session-writer.js";
import { boundEntry } from "../history/bounded-entry.js";
import type { HistoryLog } from "../history/history-log.js";
import { extendPreview } from "../history/preview.js";
import { projectEntry, recordToolNames, type ToolNames } from "../history/project-history.js";
import type { RowWrites, SessionStorage, StoredSessionWriter } from "../storage/session-storage.js";
import type { SessionFeed } from "../stream/session-feed.js";
import { anchoredLog } from "./anchored-log.js";
import { publishEvent } from "./publish-event.js";
import type { SessionLogger } from "./session-services.js";

export interface SessionLogWriterOptions {
  storage: SessionStorage;
  writer: StoredSessionWriter;
  feed: SessionFeed;
  preview: SessionPreview;
  logger: SessionLogger;
  now(): number;
  /** Called after each commit (the session's summary changed). */
  committed(): void;
  /** Called once when the log is found corrupt. */
  corrupted(error: LogCorruptError): void;
}

/** What a caller of `SessionLogWriter.commit` hears besides its result. */
export interface CommitHooks {
  /** The transaction committed; the writer's state holds its entries; not yet durable. Must not throw. */
  written?: () => void;
  /** The commit is durable; none of its events went out yet. */
  durable?: () => void;
}

export class SessionLogWriter {
  readonly sessionId: string;
  readonly #options: SessionLogWriterOptions;
  readonly #toolNames: ToolNames = new Map();
  /** Verified points of the log (what it was read as at load, and every commit since). */
  readonly #checkpoints: ChainCheckpoints;
  #preview: SessionPreview;
  #corrupt: LogCorruptError | null = null;
  /** Entries accepted but not yet written: they go first in the next commit, whatever it is. */
  #held: LogEntry[] = [];

  /** A writer over the session's whole log, just read and verified as `entries`. */
  constructor(options: SessionLogWriterOptions, entries: readonly PositionedEntry[]) {
    this.sessionId = options.writer.sessionId;
    this.#options = options;
    this.#preview = options.preview;
    this.#checkpoints = ChainCheckpoints.ofVerified(entries);
    for (const { entry } of entries) recordToolNames(entry, this.#toolNames);
  }

  /**
   * The log as committed now, for history pages and snapshots: ranges read later are verified
   * and anchored on this writer's checkpoints, so they need no ordering with later commits.
   */
  historyLog(): HistoryLog {
    return anchoredLog(this.sessionId, this.#options.storage, this.#checkpoints, (error) =>
      this.markCorrupt(error),
    );
  }

  /** The replay of the log (read it; commits change it). */
  get state(): Readonly<RestoredState> {
    return this.#options.writer.state;
  }

  /** Position of the last entry. */
  get position(): number {
    return this.#options.writer.position;
  }

  get preview(): SessionPreview {
    return this.#preview;
  }

  /** Where `entries` would be stored if committed now (after the held entries, if any). */
  placed(entries: readonly LogEntry[]): PlacedEntry[] {
    if (this.#held.length === 0) return this.#options.writer.placed(entries);
    return this.#options.writer.placed([...this.#held, ...entries]).slice(this.#held.length);
  }

  /** Whether entries wait to be committed with the next append. */
  get holding(): boolean {
    return this.#held.length > 0;
  }

  /**
   * Accept `entries` without writing them yet: the next `commit` (of anything) writes them
   * first, in its own transaction, and publishes them then. Nothing of theirs is durable or
   * visible until then; the replayed state does not hold them either.
   */
  hold(entries: readonly LogEntry[]): void {
    if (this.#corrupt !== null) throw this.#corrupt;
    this.#held.push(...entries);
  }

  /** The corruption found, or null while the log is intact as far as this writer knows. */
  get corrupt(): LogCorruptError | null {
    return this.#corrupt;
  }

  /** Forget the held entries (they will never be written); whether there were any. */
  dropHeld(): boolean {
    const dropped = this.#held.length > 0;
    this.#held = [];
    return dropped;
  }

  /** Stop writing for good: the stored log fails verification. */
  markCorrupt(error: LogCorruptError): void {
    if (this.#corrupt !== null) return;
    this.#corrupt = error;
    // Nothing more is written: what was held can never be.
    this.#held = [];
    this.#options.logger.error({ session: this.sessionId, err: error }, "session log failed verification");
    this.#options.corrupted(error);
  }

  /** The log must still verify as far as known, and end where this writer left it (a cheap check). */
  async checkIntact(): Promise<void> {
    if (this.#corrupt !== null) throw this.#corrupt;
    const { storage, writer } = this.#options;
    let stored: Awaited<ReturnType<SessionStorage["readLogHead"]>>;
    try {
      stored = await storage.readLogHead(this.sessionId);
    } catch (error) {
      if (error instanceof LogCorruptError) this.markCorrupt(error);
      throw error;
    }
    if (stored?.hash === writer.headHash && stored.position === writer.position) return;
    // Moved on because the session has another owner now (a takeover this writer has not heard
    // of yet): that is a fenced writer, not a corrupt log (throws WriteFencedError).
    await storage.confirmLease(this.sessionId);
    const position = Math.min(stored?.position ?? -1, writer.position) + 1;
    const reason =
      stored === null || stored.position < writer.position
        ? `the log ends at position ${stored?.position ?? -1} but this daemon wrote it up to ${writer.position}`
        : "the log's head is not the entry this daemon wrote last";
    const error = new LogCorruptError(this.sessionId, position, reason);
    this.markCorrupt(error);
    throw error;
  }

  /**
   * A whole log read from storage must still hold what this writer verified and committed: it
   * may go on (later commits) but not end before, or differ at, the last committed head. A log
   * rolled back behind the daemon (its head record swapped for an older, validly signed copy)
   * verifies on its own; this is what catches it while the session is loaded.
   */
  confirmRead(entries: readonly PositionedEntry[]): void {
    const head = this.#checkpoints.head;
    if (head === null) return;
    const stored = entries[head.position];
    if (stored?.hash === head.hash) return;
    this.#rolledBack(entries.length - 1, head.position);
  }

  /** The stored head must not be behind the last committed one (a cheap check before a history read). */
  async confirmNotBehind(): Promise<void> {
    if (this.#corrupt !== null) throw this.#corrupt;
    const head = this.#checkpoints.head;
    if (head === null) return;
    let stored: Awaited<ReturnType<SessionStorage["readLogHead"]>>;
    try {
      stored = await this.#options.storage.readLogHead(this.sessionId);
    } catch (error) {
      if (error instanceof LogCorruptError) this.markCorrupt(error);
      throw error;
    }
    const end = stored?.position ?? -1;
    if (end > head.position || (end === head.position && stored?.hash === head.hash)) return;
    this.#rolledBack(end, head.position);
  }

  #rolledBack(end: number, committed: number): never {
    const error = new LogCorruptError(
      this.sessionId,
      Math.min(end, committed) + 1,
      end < committed
        ? `the log ends at position ${end} but this daemon committed it up to ${committed}: it was rolled back`
        : `the entry at position ${committed} is not the one this daemon committed`,
    );
    this.markCorrupt(error);
    throw error;
  }

  /**
   * Append the held entries and `entries` with `writes` (plus the preview and the activity
   * time) in one transaction, then publish them. With no entries at all, `writes` are committed
   * alone. Returns where `entries` (not the held ones) were stored. `hooks.written` runs once the
   * transaction committed, with the writer's state holding the entries, possibly before they
   * are durable (work without side effects may start then); `hooks.durable` once durable, before
   * any event of the append goes out.
   */
  async commit(
    entries: readonly LogEntry[],
    writes: RowWrites = {},
    hooks: CommitHooks = {},
  ): Promise<PlacedEntry[]> {
    if (this.#corrupt !== null) throw this.#corrupt;
    const { storage, writer, feed, now } = this.#options;
    const held = this.#held.length;
    const all = held === 0 ? entries : [...this.#held, ...entries];
    if (all.length === 0) {
      await storage.writeRows(this.sessionId, { ...writes, activityAt: now() });
      hooks.written?.();
      hooks.durable?.();
      return [];
    }
    const preview = extendPreview(this.#preview, writer.placed(all));
    const written = hooks.written;
    let placed: PlacedEntry[];
    try {
      placed = await writer.append(
        all,
        { ...writes, preview, activityAt: now() },
        written === undefined ? {} : { onWritten: () => written() },
      );
    } catch (error) {
      this.#noticeCorruption(error);
      throw error;
    }
    // Only what was held when the append began: nothing else may hold while it is in flight.
    this.#held.splice(0, held);
    hooks.durable?.();
    this.#preview = preview;
    if (writer.headHash !== null)
      this.#checkpoints.advance({ position: writer.position, hash: writer.headHash });
    for (const item of placed) {
      for (const projected of projectEntry(item, this.#toolNames)) {
        publishEvent(feed, "message", { entry: boundEntry(projected, this.sessionId) });
      }
    }
    publishEvent(feed, "committed", { high_water: writer.position });
    this.#options.committed();
    return placed.slice(held);
  }

  /** A corrupt read or another writer's append seen while committing makes the session corrupt. */
  #noticeCorruption(error: unknown): void {
    if (error instanceof LogCorruptError) this.markCorrupt(error);
    else if (error instanceof AppendConflictError) {
      // The daemon is the only writer of its logs: another one appended behind its back.
      this.markCorrupt(new LogCorruptError(this.sessionId, this.position + 1, "another writer appended"));
    }
  }
}
