/**
 * A file's change stamp: what the daemon compares to notice that a file it keeps parsed
 * (config.json, secrets.json) was rewritten, at the cost of one stat.
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
