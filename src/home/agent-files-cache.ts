/**
 * A workspace's agent files (agent-file.ts), kept parsed and read again only when they changed:
 * every turn of a session that may delegate asks for them, and listing, reading and parsing
 * the files each time was a visible share of a plain turn's work. A change is noticed at the
 * cost of a stat of the directory and of each agent file: adding, removing or renaming a file
 * changes the directory's stamp, an edit (or a chmod) its file's.
 *
 * Boundary rule: the same object is returned while nothing changed, so callers may key what
 * they derive on it; what a file means is agent-file.ts's.
 */
import { type BigIntStats, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type AgentFiles, agentDirectory, readAgentFileList } from "./agent-file.js";

/** What one read found, with the stamps that tell whether it still holds. */
interface Kept {
  directory: string;
  /** Each file's path and its stamp when it was read. */
  stamps: [string, string][];
  files: AgentFiles;
}

/** The most workspaces kept (the oldest is dropped first). */
const maxWorkspaces = 256;

/** A workspace without an agent directory. */
const none: AgentFiles = Object.freeze({ agents: Object.freeze(Object.create(null)), errors: [] });

/** A file's stamp: ctime moves on every write and chmod; size and inode catch two writes in one tick. */
function stampOf(stats: BigIntStats | undefined): string {
  return stats === undefined ? "absent" : `${stats.ctimeNs}:${stats.mtimeNs}:${stats.size}:${stats.ino}`;
}

function stampNow(path: string): string {
  try {
    return stampOf(statSync(path, { bigint: true, throwIfNoEntry: false }));
  } catch (error) {
    return `error:${(error as Error).message}`;
  }
}

/** The agent files of workspaces, read again when they changed. */
export class AgentFilesCache {
  readonly #kept = new Map<string, Kept>();

  /** The agent files of `workspace` as they are now; the same object as last time when none changed. */
  read(workspace: string): AgentFiles {
    const directory = join(workspace, agentDirectory);
    const directoryStamp = stampNow(directory);
    if (directoryStamp === "absent") {
      this.#kept.delete(workspace);
      return none;
    }
    const kept = this.#kept.get(workspace);
    if (kept !== undefined && this.#holds(kept, directoryStamp)) return kept.files;
    const fresh = this.#readAll(directory, directoryStamp);
    this.#kept.delete(workspace);
    if (this.#kept.size >= maxWorkspaces) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(workspace, fresh);
    return fresh.files;
  }

  #holds(kept: Kept, directoryStamp: string): boolean {
    return kept.stamps.every(
      ([path, stamp]) => (path === kept.directory ? directoryStamp : stampNow(path)) === stamp,
    );
  }

  /** Stamps first, then the reads: a change during the read is seen by the next call. */
  #readAll(directory: string, directoryStamp: string): Kept {
    const stamps: [string, string][] = [[directory, directoryStamp]];
    let names: string[];
    try {
      names = readdirSync(directory).filter((entry) => entry.endsWith(".md"));
    } catch {
      names = [];
    }
    for (const name of names) {
      const file = join(directory, name);
      stamps.push([file, stampNow(file)]);
    }
    return { directory, stamps, files: readAgentFileList(directory, names) };
  }
}
