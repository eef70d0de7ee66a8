/**
 * Reading an SQLite write-ahead log: which pages its valid frames wrote, commit by commit, and
 * which table or index each page belongs to (the `dbstat` virtual table of a copy of the
 * database). For the bench's WAL figures and `tsx bench/wal-pages.ts`.
 *
 * Boundary rule: reads files only; never opens the live database.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const walHeaderBytes = 32;
const frameHeaderBytes = 24;

/** The valid frames of a WAL file: the page each wrote, and where its commits end. */
export interface WalFrames {
  /** Salt-1 of the WAL header: it changes each time SQLite restarts the log from its start. */
  salt: number;
  /** Page numbers of the valid frames, in order. */
  pages: number[];
  /** Indexes (into `pages`) of the frames that end a commit. */
  commitEnds: number[];
}

/** The frames of the WAL at `path` whose salts match its header (the log's current content). */
export function readWal(path: string): WalFrames {
  if (!existsSync(path)) return { salt: 0, pages: [], commitEnds: [] };
  const bytes = readFileSync(path);
  if (bytes.length < walHeaderBytes) return { salt: 0, pages: [], commitEnds: [] };
  const pageSize = bytes.readUInt32BE(8);
  const salt1 = bytes.readUInt32BE(16);
  const salt2 = bytes.readUInt32BE(20);
  const pages: number[] = [];
  const commitEnds: number[] = [];
  for (let at = walHeaderBytes; at + frameHeaderBytes + pageSize <= bytes.length; ) {
    // A frame of an earlier generation of the log (its salts differ) ends the valid part.
    if (bytes.readUInt32BE(at + 8) !== salt1 || bytes.readUInt32BE(at + 12) !== salt2) break;
    pages.push(bytes.readUInt32BE(at));
    if (bytes.readUInt32BE(at + 4) !== 0) commitEnds.push(pages.length - 1);
    at += frameHeaderBytes + pageSize;
  }
  return { salt: salt1, pages, commitEnds };
}

/** The frames `after` holds that `before` did not (the log restarted in between: all of them). */
export function framesSince(before: WalFrames, after: WalFrames): { pages: number[]; commits: number } {
  const from = before.salt === after.salt ? before.pages.length : 0;
  return {
    pages: after.pages.slice(from),
    commits: after.commitEnds.filter((end) => end >= from).length,
  };
}

/**
 * The table or index owning each page of the database at `dbPath` (with its WAL), read from a
 * copy; pages no b-tree owns are "freelist".
 */
export function pageOwners(dbPath: string): Map<number, string> {
  const dir = mkdtempSync(join(tmpdir(), "skein-wal-pages-"));
  try {
    const copy = join(dir, "copy.sqlite");
    copyFileSync(dbPath, copy);
    if (existsSync(`${dbPath}-wal`)) copyFileSync(`${dbPath}-wal`, `${copy}-wal`);
    // Read-write: a read-only connection could not rebuild the copy's WAL index.
    const db = new Database(copy);
    try {
      const rows = db.prepare("SELECT name, pageno FROM dbstat").all() as Array<{
        name: string;
        pageno: number;
      }>;
      return new Map(rows.map((row) => [row.pageno, row.name]));
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many of `pages` each owner has, most first. */
export function pagesByOwner(pages: readonly number[], owners: Map<number, string>): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const page of pages) {
    const owner = owners.get(page) ?? "freelist";
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
