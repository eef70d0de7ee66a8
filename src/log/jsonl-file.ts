/**
 * Byte-level I/O on a JSONL session file for the file store: opening it to append, writing and
 * reading it whole, telling whether it holds a committed line, making its creation durable.
 *
 * Boundary rule: no knowledge of entries or heads; the file store decides what the bytes mean.
 * The append path is synchronous (see fs-store.ts): one cheap syscall per call on a local file.
 */
import { constants, openSync, writeSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { AppendConflictError, SessionNotFoundError } from "./errors.js";

const NEWLINE = 0x0a;
const SCAN_CHUNK = 64 * 1024;

/**
 * Open a session file to append to it: created only for a first append (`expected` null); a
 * missing file otherwise means the log the caller chains onto is gone (`AppendConflictError`).
 */
export function openForAppend(sessionId: string, file: string, expected: string | null): number {
  try {
    return openSync(file, expected === null ? constants.O_RDWR | constants.O_CREAT : constants.O_RDWR, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new AppendConflictError(sessionId, expected, null);
    }
    throw error;
  }
}

/** Whether a session file exists and holds a committed line, i.e. a newline. */
export async function hasCommittedLine(file: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  try {
    const chunk = Buffer.allocUnsafe(SCAN_CHUNK);
    let offset = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, offset);
      if (bytesRead === 0) return false;
      if (chunk.subarray(0, bytesRead).includes(NEWLINE)) return true;
      offset += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** A session file's bytes; `SessionNotFoundError` when it does not exist. */
export async function readSessionFile(sessionId: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new SessionNotFoundError(sessionId);
    throw error;
  }
}

/** Write all of `bytes` at `position` (a write may take fewer bytes than asked). */
export function writeFully(fd: number, bytes: Buffer, position: number): void {
  let written = 0;
  while (written < bytes.length) {
    written += writeSync(fd, bytes, written, bytes.length - written, position + written);
  }
}

/** Make a new directory entry (a just-created session file) durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
