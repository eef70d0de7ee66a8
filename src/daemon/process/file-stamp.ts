/**
 * A file's change stamp: what the daemon compares to notice that a file it keeps parsed
 * (config.json, secrets.json) was rewritten, at the cost of one stat.
 *
 * A plain turn asks for config.json's stamp ~6 times and for secrets.json's once (its planner,
 * client, tools, budget, commits), each a stat on the event loop. `StampCheck` asks the file
 * system at most once per event-loop iteration instead, and again after `recheckStamps` (called
 * as each HTTP request arrives): a change made before a request was sent is seen by that
 * request and by the turn it starts, and any change is seen by whatever runs in a later
 * iteration (a turn started by a timer, a retry, a delivery).
 *
 * Boundary rule: one stat, no reading; callers decide what a change means.
 */
import { statSync } from "node:fs";

/** `path`'s stamp now, or "absent" when it does not exist; other stat errors are thrown. */
export function fileStamp(path: string): string {
  // An absent file (secrets.json, often) is asked about without an exception: a thrown ENOENT
  // costs several times the stat, and it is asked for on every turn.
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (stats === undefined) return "absent";
  // mtime alone misses two writes within the file system's timestamp granularity.
  return `${stats.mtimeNs}:${stats.size}:${stats.ino}`;
}

/** Bumped by `recheckStamps`: a stamp taken under an older value is taken again. */
let generation = 0;

/** Every `StampCheck` asks the file system again on its next use (an HTTP request arrived). */
export function recheckStamps(): void {
  generation++;
}

/** A file's stamp, taken at most once per event-loop iteration and per `recheckStamps`. */
export class StampCheck {
  readonly path: string;
  /** The stamp taken in this iteration, or null once the iteration is over. */
  #stamp: string | null = null;
  #generation = -1;

  constructor(path: string) {
    this.path = path;
  }

  /** The file's stamp (see `fileStamp`, whose errors are thrown and never kept). */
  now(): string {
    if (this.#stamp !== null && this.#generation === generation) return this.#stamp;
    const stamp = fileStamp(this.path);
    // The check phase follows the poll phase that runs I/O callbacks: forgotten there, a stamp
    // taken while handling I/O never outlives the events that were ready with it.
    if (this.#stamp === null) setImmediate(() => this.forget());
    this.#stamp = stamp;
    this.#generation = generation;
    return stamp;
  }

  /** Take the stamp anew on the next `now()`. */
  forget(): void {
    this.#stamp = null;
  }
}
