/**
 * Test-only: the pages (frames) a SQLite connection's commits write to the write-ahead log,
 * counted from the header of the log's shared-memory index (`<db>-shm`): its frame count
 * (`mxFrame`) and salts, which change each time SQLite restarts the log from its start (after
 * the checkpointer copied all of it back). Sampled before every statement of a counting
 * connection and when the count is read, so that no restart goes unseen between two samples.
 *
 * Boundary rule: reads the index's header only (a file SQLite maps into memory; reading it
 * changes nothing); never writes it, never opens the database itself.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";

/** Bytes of the index header read: through `aSalt` (offset 32, two u32). */
const headerBytes = 40;

export class WalFrameCounter {
  readonly #path: string;
  #frames = 0;
  /** The header seen last: null before the first (whose frames predate the counting). */
  #last: { max: number; salt: string } | null = null;

  /** A counter for the database at `databasePath` (in WAL mode). */
  constructor(databasePath: string) {
    this.#path = `${databasePath}-shm`;
  }

  /** Frames written since the first sample. */
  get frames(): number {
    return this.#frames;
  }

  /** Add the frames written since the previous sample. */
  sample(): void {
    const header = this.#read();
    if (header === null) return;
    const last = this.#last;
    this.#last = header;
    if (last === null) return;
    // The log restarted: every frame it holds now is new.
    this.#frames += header.salt === last.salt ? Math.max(0, header.max - last.max) : header.max;
  }

  #read(): { max: number; salt: string } | null {
    // Opened for each sample (a counting connection is a test's): no descriptor outlives the database.
    let fd: number;
    try {
      fd = openSync(this.#path, "r");
    } catch {
      // No index yet: no connection opened the log so far.
      return null;
    }
    const bytes = Buffer.alloc(headerBytes);
    try {
      if (readSync(fd, bytes, 0, headerBytes, 0) < headerBytes) return null;
    } finally {
      closeSync(fd);
    }
    // The header is in the machine's byte order; `isInit` (offset 12) is 0 until it is built.
    if (bytes[12] === 0) return null;
    const max = endianness() === "LE" ? bytes.readUInt32LE(16) : bytes.readUInt32BE(16);
    return { max, salt: bytes.subarray(32, 40).toString("hex") };
  }
}
