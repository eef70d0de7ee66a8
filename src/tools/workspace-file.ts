/**
 * Opening and replacing regular files that `resolveInWorkspace` has already placed inside the
 * workspace.
 *
 * Boundary rule: every descriptor is checked with `assertDescriptorInWorkspace` before a byte is
 * read or written, final symlinks are never followed (O_NOFOLLOW), FIFOs and devices are refused
 * without blocking (O_NONBLOCK), and writes go to a fresh temporary file in the same directory
 * that is renamed over the target, so a reader never sees a half-written file.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../model/tools.js";
import { errorCode, errorMessage } from "./system-error.js";
import { assertDescriptorInWorkspace } from "./workspace-path.js";

/** Opens an existing regular file for reading; `requested` is the path as the model wrote it. */
export async function openRegularFile(
  realRoot: string,
  absolute: string,
  requested: string,
): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw fileError(requested, error);
  }
  try {
    await assertDescriptorInWorkspace(realRoot, handle.fd, requested);
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new ToolError("execution_failed", `"${requested}" is a directory, not a file`);
    }
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
  const directory = path.dirname(absolute);
  try {
    await mkdir(directory, { recursive: true });
  } catch (error) {
    throw new ToolError(
      "execution_failed",
      `cannot create the directory for "${requested}": ${errorMessage(error)}`,
    );
  }
  const existing = await lstat(absolute).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return undefined;
    throw fileError(requested, error);
  });
  if (existing?.isDirectory())
    throw new ToolError("execution_failed", `"${requested}" is a directory, not a file`);
  if (existing !== undefined && !existing.isFile()) {
    throw new ToolError("execution_failed", `"${requested}" is not a regular file`);
  }
  const mode = existing === undefined ? 0o666 : existing.mode & 0o7777;
  const temporary = path.join(
    directory,
    `.${path.basename(absolute)}.${randomBytes(6).toString("hex")}.skein-tmp`,
  );
  let handle: FileHandle;
  try {
    handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode,
    );
  } catch (error) {
    throw fileError(requested, error);
  }
  try {
    try {
      await assertDescriptorInWorkspace(realRoot, handle.fd, requested);
      await handle.writeFile(content);
      // The creation mode was filtered by the umask; an existing file's bits are restored exactly.
      if (existing !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, absolute);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    if (error instanceof ToolError) throw error;
    throw fileError(requested, error);
  }
  const bytes = typeof content === "string" ? Buffer.byteLength(content, "utf8") : content.length;
  return { created: existing === undefined, bytes };
}

/** A filesystem failure as the model should read it. */
export function fileError(requested: string, error: unknown): ToolError {
  switch (errorCode(error)) {
    case "ENOENT":
      return new ToolError("execution_failed", `"${requested}" does not exist`);
    case "ENOTDIR":
      return new ToolError("execution_failed", `a parent of "${requested}" is not a directory`);
    case "EISDIR":
      return new ToolError("execution_failed", `"${requested}" is a directory, not a file`);
    case "EACCES":
    case "EPERM":
      return new ToolError("execution_failed", `permission denied for "${requested}"`);
    case "ELOOP":
      return new ToolError(
        "execution_failed",
        `"${requested}" is a symbolic link that could not be followed`,
      );
    default:
      return new ToolError("execution_failed", `cannot access "${requested}": ${errorMessage(error)}`);
  }
}
