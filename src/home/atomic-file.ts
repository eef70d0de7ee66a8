/**
 * Replace a small file atomically: readers see the old content or the new one, never a part.
 *
 * The home's files (daemon.json, config.json, the signing key) are written this way, by the
 * daemon and by the CLI alike.
 *
 * Boundary rule: byte-level file replacement only; callers own the content and its meaning.
 * The temp file lives in the same directory (rename is atomic only within one file system),
 * is created with the final mode (a secret is never readable by others, not even briefly), and
 * is removed if anything fails before the rename.
 */
import { randomBytes } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Write `data` to `path` via temp file + fsync + rename + directory fsync. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  const directory = dirname(path);
  const temp = join(directory, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", mode);
  try {
    try {
      await handle.writeFile(data);
      // The mode argument of open() is filtered by the umask; set it exactly.
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(directory);
}

/** fsync a directory so a rename or unlink in it survives a power loss. */
export async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, "r");
    await handle.sync();
  } catch (error) {
    // Some file systems refuse fsync on a directory; the rename itself has still happened.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EINVAL" && code !== "EISDIR" && code !== "EPERM" && code !== "EBADF") throw error;
  } finally {
    await handle?.close();
  }
}
