/**
 * What `skein backup PATH` writes, and `skein restore PATH` reads: a folder (0700) holding a
 * consistent copy of the SQLite database, the home's files that give it meaning (the head-signing
 * key and state, config.json, secrets), and `manifest.json` naming each session's signed head at
 * the moment of the copy.
 *
 * Boundary rule: names, the manifest's shape and its validation; copying is the daemon's.
 */
import { join } from "node:path";

/** The manifest's format version. */
export const backupFormat = 1;

/** One session's recorded head in the copy. */
export interface BackedUpHead {
  session: string;
  position: number;
  hash: string;
  key_id: string | null;
}

/** `manifest.json` of a backup folder. */
export interface BackupManifest {
  format: typeof backupFormat;
  created_at: string;
  /** The Skein version that took the backup. */
  skein_version: string;
  schema_version: number;
  /** The database copy's file name inside the folder. */
  database: string;
  database_bytes: number;
  /** The home's files copied beside it (names inside the folder and the home alike). */
  home_files: string[];
  heads: BackedUpHead[];
}

/** The paths inside a backup folder. */
export function backupPaths(folder: string): { manifest: string; database: string } {
  return { manifest: join(folder, "manifest.json"), database: join(folder, "skein.sqlite") };
}

/** A backup folder's manifest is missing or not one this version reads. */
class BackupManifestError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} is not a Skein backup manifest: ${reason}`);
    this.name = "BackupManifestError";
  }
}

/** Validate a parsed manifest (from `path`, for the error). */
export function checkBackupManifest(path: string, value: unknown): BackupManifest {
  const fail = (reason: string): never => {
    throw new BackupManifestError(path, reason);
  };
  if (typeof value !== "object" || value === null) return fail("it is not a JSON object");
  const manifest = value as Partial<Record<keyof BackupManifest, unknown>>;
  if (manifest.format !== backupFormat)
    return fail(`format ${String(manifest.format)}, expected ${backupFormat}`);
  if (typeof manifest.database !== "string" || manifest.database.includes("/")) return fail("bad `database`");
  if (!Number.isSafeInteger(manifest.schema_version)) return fail("bad `schema_version`");
  const files = manifest.home_files;
  if (!Array.isArray(files) || !files.every((name) => typeof name === "string" && /^[\w.-]+$/.test(name)))
    return fail("bad `home_files`");
  const heads = manifest.heads;
  if (!Array.isArray(heads) || !heads.every(isHead)) return fail("bad `heads`");
  return value as BackupManifest;
}

function isHead(value: unknown): value is BackedUpHead {
  const head = value as Partial<Record<keyof BackedUpHead, unknown>> | null;
  return (
    typeof head === "object" &&
    head !== null &&
    typeof head.session === "string" &&
    Number.isSafeInteger(head.position) &&
    typeof head.hash === "string" &&
    (head.key_id === null || typeof head.key_id === "string")
  );
}
