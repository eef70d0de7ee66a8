/**
 * Opening and replacing regular files that `resolveInWorkspace` has already placed inside the
 * workspace and outside every hidden path.
 *
 * Boundary rule: the file's directory is reached through a `PinnedDirectory` (no symlink
 * followed on the way), the final component is opened with O_NOFOLLOW, FIFOs and devices are
 * refused without blocking (O_NONBLOCK), and writes go to a fresh temporary file in the same
 * directory that is renamed over the target, so a reader never sees a half-written file (one a
 * killed writer left behind is swept at the next write of that file: temporary-sibling.ts).
 */
import { constants } from "node:fs";
import { type FileHandle, lstat, open, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../model/tools.js";
import { fileError } from "./file-error.js";
import { PinnedDirectory } from "./pinned-directory.js";
import { errorCode } from "./system-error.js";
import { claimTemporaryName, releaseTemporaryName, sweepTemporarySiblings } from "./temporary-sibling.js";

/** Opens an existing regular file for reading; `requested` is the path as the model wrote it. */
export async function openRegularFile(
  realRoot: string,
  absolute: string,
  requested: string,
): Promise<FileHandle> {
  if (absolute === realRoot) throw notAFile(requested);
  const directory = await PinnedDirectory.openBeneath(realRoot, path.dirname(absolute), requested);
  let handle: FileHandle;
  try {
    handle = await open(
      directory.entry(path.basename(absolute)),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    throw fileError(requested, error);
  } finally {
    await directory.close();
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw notAFile(requested);
    if (!stats.isFile()) throw new ToolError("execution_failed", `"${requested}" is not a regular file`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** What `replaceFileAtomically` did. */
export interface FileReplacement {
  created: boolean;
  bytes: number;
}

/**
 * Writes `content` to `absolute` by writing a temporary sibling and renaming it over the target.
 * Missing parent directories are created; an existing file keeps its permission bits.
 */
export async function replaceFileAtomically(
  realRoot: string,
  absolute: string,
  requested: string,
  content: string | Uint8Array,
): Promise<FileReplacement> {
  if (absolute === realRoot) throw notAFile(requested);
  const directory = await PinnedDirectory.openBeneath(realRoot, path.dirname(absolute), requested, {
    create: true,
  });
  try {
    return await replaceIn(directory, path.basename(absolute), requested, content);
  } finally {
    await directory.close();
  }
}

async function replaceIn(
  directory: PinnedDirectory,
  name: string,
  requested: string,
  content: string | Uint8Array,
): Promise<FileReplacement> {
  const target = directory.entry(name);
  const existing = await lstat(target).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return undefined;
    throw fileError(requested, error);
  });
  if (existing?.isDirectory()) throw notAFile(requested);
  if (existing !== undefined && !existing.isFile()) {
    throw new ToolError("execution_failed", `"${requested}" is not a regular file`);
  }
  const mode = existing === undefined ? 0o666 : existing.mode & 0o7777;
  await sweepTemporarySiblings(directory, name);
  const sibling = claimTemporaryName(name);
  const temporary = directory.entry(sibling);
  let handle: FileHandle;
  try {
    handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode,
    );
  } catch (error) {
    releaseTemporaryName(sibling);
    throw fileError(requested, error);
  }
  try {
    try {
      await handle.writeFile(content);
      // The creation mode was filtered by the umask; an existing file's bits are restored exactly.
      if (existing !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    if (error instanceof ToolError) throw error;
    throw fileError(requested, error);
  } finally {
    releaseTemporaryName(sibling);
  }
  const bytes = typeof content === "string" ? Buffer.byteLength(content, "utf8") : content.length;
  return { created: existing === undefined, bytes };
}

function notAFile(requested: string): ToolError {
  return new ToolError("execution_failed", `"${requested}" is a directory, not a file`);
}
