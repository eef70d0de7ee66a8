/**
 * What a session's log writer promises about a commit (see session-log-writer.ts): how a part
 * of the session hears of commits, a commit under way, and what a commit publishes besides its
 * entries.
 *
 * Boundary rule: types only.
 */
import type { LogCorruptError } from "../../log/errors.js";
import type { PlacedEntry } from "../../log/session-writer.js";

/** What a part of the session hears of every commit (see `SessionLogWriter.observe`). */
export interface LogObserver {
  /** A commit is durable and its events went out: the entries it stored, held ones first. */
  committed?(placed: readonly PlacedEntry[]): void;
  /** The log was found corrupt (once): nothing more will be written. */
  corrupted?(error: LogCorruptError): void;
}

/** A commit under way (see `SessionLogWriter.begin`). */
export interface PendingCommit {
  /**
   * The transaction committed and the replayed state holds the entries, possibly before they
   * are durable: work without side effects may start (a turn's model request). Rejects as
   * `durable` does when the commit fails before.
   */
  written: Promise<void>;
  /** The commit is durable and published: where the entries (not the held ones) were stored. */
  durable: Promise<PlacedEntry[]>;
}

/** What a commit publishes besides its entries. */
export interface CommitOptions {
  /** Published once the commit is durable, before any event of its own (an input's pending receipt). */
  announce?: () => void;
}
