/**
 * A loaded session's log, as its actor writes it: the log's `SessionWriter` (head, position,
 * replayed state) plus what the daemon keeps beside each append in the same transaction (turn
 * and input rows, the preview, the activity time), and what it tells clients once an append
 * has committed (one `message` event per history entry, then `committed`). A turn's last step
 * may be held (`hold`): it is committed with the next append, which is the turn's end, so a
 * plain turn's answer and its end share one transaction. A caller that may start work before
 * its commit is durable (a turn's model request) awaits `begin`'s `written`; the session's
 * parts hear of every commit by observing the writer (`observe`).
 *
 * Boundary rule: the session's only way to write its log. Once the stored log is found changed
 * behind the daemon (a read that fails verification, a head that is not where this writer left
 * it, another writer's append) the session is corrupt: nothing more is written, ever, by this
 * actor; the error is kept and thrown again. A head moved on because the session has another
 * owner now (a cluster takeover) is no corruption: that is reported as a fenced writer.
 */

import type { SessionPreview } from "../../api/session-snapshot.js";
import { ChainCheckpoints } from "../../log/chain-checkpoints.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import { AppendConflictError, LogCorruptError } from "../../log/errors.js";
import type { RestoredState } from "../../log/restored-state.js";
import type { PlacedEntry } from "../../log/session-writer.js";
import { boundEntry } from "../history/bounded-entry.js";
import { type HistoryLog, wholeLog } from "../history/history-log.js";
import { extendPreview } from "../history/preview.js";
import { projectEntry, recordToolNames, type ToolNames } from "../history/project-history.js";
import type { RowWrites, SessionStorage, StoredSessionWriter } from "../storage/session-storage.js";
import type { CommitSpan, TraceIds, TurnTrace } from "../telemetry/turn-trace.js";
import { anchoredLog } from "./anchored-log.js";
import { AnnounceOrder } from "./announce-order.js";
import type { CommitOptions, LogObserver, PendingCommit } from "./log-commit.js";
import type { SessionOutlet } from "./session-outlet.js";

/** Where a session's log is kept: the storage, the log's writer from it, the preview as stored. */
export interface LogPlace {
  storage: SessionStorage;
  writer: StoredSessionWriter;
  preview: SessionPreview;
}

export type { CommitOptions, LogObserver, PendingCommit } from "./log-commit.js";

export class SessionLogWriter {
  readonly sessionId: string;
  readonly #outlet: SessionOutlet;
  readonly #storage: SessionStorage;
  readonly #writer: StoredSessionWriter;
  readonly #observers: LogObserver[] = [];
  readonly #toolNames: ToolNames = new Map();
  /** Verified points of the log (what it was read as at load, and every commit since). */
  readonly #checkpoints: ChainCheckpoints;
  #preview: SessionPreview;
  #corrupt: LogCorruptError | null = null;
  /** Entries accepted but not yet written: they go first in the next commit, whatever it is. */
  #held: LogEntry[] = [];
  readonly #announceOrder = new AnnounceOrder();
  /** The turns being traced: their entries carry the trace's ids, their commits get spans. */
  readonly #traces = new Map<string, TurnTrace>();

  /**
   * A writer over the session's log, just read and verified as `entries`: the whole log, or the
   * entry of the state checkpoint it was restored from and every one after it.
   */
  constructor(outlet: SessionOutlet, place: LogPlace, entries: readonly PositionedEntry[]) {
    this.sessionId = place.writer.sessionId;
    this.#outlet = outlet;
    this.#storage = place.storage;
    this.#writer = place.writer;
    this.#preview = place.preview;
    this.#checkpoints = ChainCheckpoints.ofVerified(entries);
    // A restored context may hold calls from before the entries read: their results need names too.
    recordToolNames({ kind: "assistant_items", ts: 0, items: place.writer.state.history }, this.#toolNames);
    for (const { entry } of entries) recordToolNames(entry, this.#toolNames);
  }

  /** Hear of every commit from now on, and of the log found corrupt (observers are told in the order they came). */
  observe(observer: LogObserver): void {
    this.#observers.push(observer);
  }

  /**
   * The log as committed now, for history pages and snapshots: ranges read later are verified
   * and anchored on this writer's checkpoints, so they need no ordering with later commits.
   */
  historyLog(): HistoryLog {
    return anchoredLog(this.sessionId, this.#storage, this.#checkpoints, (error) => this.markCorrupt(error));
  }

  /** The log's verified points, to add what a check proves later (the prefix check: session/prefix-check.ts). */
  get verifiedPoints(): Pick<ChainCheckpoints, "pointsOf" | "learn"> {
    return this.#checkpoints;
  }

  /**
   * The log as committed now, for a history page or a snapshot (read outside the mailbox: only
   * what was committed is read). A session found corrupt reads (and so verifies) it whole; a
   * read that fails verification, or a log behind what this writer committed, marks it corrupt.
   */
  async readableLog(): Promise<HistoryLog> {
    if (this.#corrupt === null) {
      await this.confirmNotBehind();
      return this.historyLog();
    }
    const entries = await this.#storage.readLog(this.sessionId).catch((error: unknown) => {
      if (error instanceof LogCorruptError) this.markCorrupt(error);
      throw error;
    });
    this.confirmRead(entries);
    return wholeLog(entries);
  }

  /** The replay of the log (read it; commits change it). */
  get state(): Readonly<RestoredState> {
    return this.#writer.state;
  }

  /** Entries of turn `turnId` carry `trace`'s ids from now on, and its commits get spans, until `untrace`. */
  trace(turnId: string, trace: TurnTrace): void {
    this.#traces.set(turnId, trace);
  }

  /** The trace ids turn `turnId`'s entries carry (undefined when it is not traced). */
  traceOf(turnId: string): TraceIds | undefined {
    return this.#traces.get(turnId)?.ids;
  }

  /** Turn `turnId` is over: its trace is no longer the log's business. */
  untrace(turnId: string): void {
    this.#traces.delete(turnId);
  }

  /** The hash of the last entry committed (null for an empty log). */
  get headHash(): string | null {
    return this.#writer.headHash;
  }

  /** Position of the last entry. */
  get position(): number {
    return this.#writer.position;
  }

  get preview(): SessionPreview {
    return this.#preview;
  }

  /** Where `entries` would be stored if committed now (after the held entries, if any). */
  placed(entries: readonly LogEntry[]): PlacedEntry[] {
    if (this.#held.length === 0) return this.#writer.placed(entries);
    return this.#writer.placed([...this.#held, ...entries]).slice(this.#held.length);
  }

  /** Whether entries wait to be committed with the next append. */
  get holding(): boolean {
    return this.#held.length > 0;
  }

  /**
   * Accept `entries` without writing them yet: the next `commit` (of anything) writes them
   * first, in its own transaction, and publishes them then. Nothing of theirs is durable or
   * visible until then; the replayed state does not hold them either. Needs no mailbox: a
   * commit in flight writes only what was held when it began.
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
    this.#outlet.logger.error({ session_id: this.sessionId, err: error }, "session log failed verification");
    for (const observer of this.#observers) observer.corrupted?.(error);
  }

  /** The log must still verify as far as known, and end where this writer left it (a cheap check). */
  async checkIntact(): Promise<void> {
    if (this.#corrupt !== null) throw this.#corrupt;
    const storage = this.#storage;
    const writer = this.#writer;
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
    const stored = entries[head.position - (entries[0]?.position ?? 0)];
    if (stored?.hash === head.hash) return;
    // The entries may start at a state checkpoint: the end is the last one's position, not a count.
    this.#rolledBack(entries.at(-1)?.position ?? -1, head.position);
  }

  /** The stored head must not be behind the last committed one (a cheap check before a history read). */
  async confirmNotBehind(): Promise<void> {
    if (this.#corrupt !== null) throw this.#corrupt;
    const head = this.#checkpoints.head;
    if (head === null) return;
    let stored: Awaited<ReturnType<SessionStorage["readLogHead"]>>;
    try {
      stored = await this.#storage.readLogHead(this.sessionId);
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
   * Tell clients of entries the session's creation committed after its own first ones (its
   * first turn's start), as a commit of them would have: their events, then `committed`.
   */
  announceCreated(placed: readonly PlacedEntry[]): void {
    this.#publish(placed);
  }

  /**
   * Append the held entries and `entries` with `writes` (plus the preview and the activity
   * time) in one transaction, then publish them; resolves once durable and published, with
   * where `entries` (not the held ones) were stored. With no entries at all, `writes` are
   * committed alone.
   */
  commit(
    entries: readonly LogEntry[],
    writes: RowWrites = {},
    options: CommitOptions = {},
  ): Promise<PlacedEntry[]> {
    return this.#commit(entries, writes, options, undefined);
  }

  /**
   * Start a commit as `commit` does, and tell its caller apart when it is written (the
   * replayed state holds it; not yet durable) and when it is durable and published. Once
   * durable, it announces one check phase later, so the I/O its caller started on `written`
   * (the turn's model request) goes out first (announce-order.ts).
   */
  begin(entries: readonly LogEntry[], writes: RowWrites = {}, options: CommitOptions = {}): PendingCommit {
    let markWritten: () => void = () => undefined;
    const written = new Promise<void>((resolve) => {
      markWritten = resolve;
    });
    const durable = this.#commit(entries, writes, options, () => markWritten());
    return { written: Promise.race([written, durable.then(() => undefined)]), durable };
  }

  async #commit(
    entries: readonly LogEntry[],
    writes: RowWrites,
    options: CommitOptions,
    written: (() => void) | undefined,
  ): Promise<PlacedEntry[]> {
    if (this.#corrupt !== null) throw this.#corrupt;
    const writer = this.#writer;
    const held = this.#held.length;
    const { all, span } = this.#traced(held === 0 ? entries : [...this.#held, ...entries]);
    if (all.length === 0) {
      await this.#storage.writeRows(this.sessionId, { ...writes, activityAt: this.#outlet.now() });
      written?.();
      await this.#announceOrder.turn(written !== undefined);
      options.announce?.();
      return [];
    }
    const preview = extendPreview(this.#preview, writer.placed(all));
    const began = this.#outlet.meter === undefined ? 0 : performance.now();
    let placed: PlacedEntry[];
    try {
      const now = this.#outlet.now();
      const notifications =
        this.#outlet.notifications?.(
          this.sessionId,
          all,
          writes,
          now,
          (callId) => this.#toolNames.get(callId) ?? null,
        ) ?? [];
      placed = await writer.append(
        all,
        { ...writes, preview, activityAt: now, ...(notifications.length > 0 ? { notifications } : {}) },
        written === undefined ? {} : { onWritten: () => written() },
      );
    } catch (error) {
      span?.failed(error);
      this.#noticeCorruption(error);
      throw error;
    }
    span?.written(writer.position - all.length + 1, writer.position, writer.headHash);
    this.#outlet.meter?.commit((performance.now() - began) / 1000);
    // Only what was held when the append began: a hold while it was in flight waits for the next.
    this.#held.splice(0, held);
    this.#preview = preview;
    if (writer.headHash !== null)
      this.#checkpoints.advance({ position: writer.position, hash: writer.headHash });
    await this.#announceOrder.turn(written !== undefined);
    options.announce?.();
    this.#publish(placed);
    for (const observer of this.#observers) observer.committed?.(placed);
    return placed.slice(held);
  }

  /**
   * `all` with the trace ids of the traced turn each entry belongs to, and a span for the
   * commit under the first such turn's trace (none when no turn is traced: tracing off).
   */
  #traced(all: readonly LogEntry[]): { all: readonly LogEntry[]; span: CommitSpan | null } {
    if (this.#traces.size === 0) return { all, span: null };
    let first: TurnTrace | undefined;
    const stamped = all.map((entry): LogEntry => {
      const turnId = "turn_id" in entry ? entry.turn_id : undefined;
      const trace = turnId === undefined || turnId === null ? undefined : this.#traces.get(turnId);
      if (trace === undefined) return entry;
      first ??= trace;
      return { ...entry, ...trace.ids };
    });
    return { all: stamped, span: first?.commitStarted(stamped.length) ?? null };
  }

  /** One `message` event per history entry of what was stored, then `committed`. */
  #publish(placed: readonly PlacedEntry[]): void {
    for (const item of placed) {
      for (const projected of projectEntry(item, this.#toolNames)) {
        this.#outlet.publish("message", { entry: boundEntry(projected, this.sessionId) });
      }
    }
    this.#outlet.publish("committed", { high_water: this.#writer.position });
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
