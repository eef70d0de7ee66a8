/**
 * `skein backup PATH` and `skein restore PATH`: a consistent online copy of a home whose
 * database is SQLite, taken while the daemon runs and writes, and its restoration into an empty
 * home. The database is copied with SQLite's online backup API (a copy that completes is one
 * consistent state of the database: a write by the daemon during it makes SQLite start the copy
 * again), then checked like the daemon would read it before the backup is said to be taken.
 * PostgreSQL homes are backed up with pg_dump (docs/operations.md).
 *
 * Boundary rule: the daemon's process layer; the CLI reaches it through load-daemon.ts.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import { writeFileAtomic } from "../../home/atomic-file.js";
import {
  type BackupManifest,
  backupFormat,
  backupPaths,
  checkBackupManifest,
} from "../../home/backup-manifest.js";
import { homePaths } from "../../home/home.js";
import { packageVersion } from "../../home/package-version.js";
import { checkDatabaseCopy } from "./database-copy-check.js";
import { ensureHome } from "./home.js";
import { readSettings } from "./settings.js";

/** A backup or restore that cannot be done, with what to do instead. */
export class HomeBackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HomeBackupError";
  }
}

/** What a backup or restore did. */
export interface BackupSummary {
  folder: string;
  home: string;
  sessions: number;
  entries: number;
  databaseBytes: number;
  elapsedMs: number;
}

/**
 * The home's files a backup carries beside the database: what gives the copy its meaning (the
 * key its heads are signed with and since when, config.json and the API keys `skein auth set`
 * stored, without which its profiles would not work). Not carried: how to reach a
 * running daemon, its lock and its output, browser logins (a restored home asks browsers to log
 * in again), MCP servers' state and the workspace checkpoints (docs/operations.md).
 */
function carriedFiles(home: string): string[] {
  const paths = homePaths(home);
  return [paths.config, paths.secrets, paths.signingKey, paths.headSigning]
    .filter((path) => existsSync(path))
    .map((path) => basename(path))
    .sort();
}

function sqliteDatabase(env: NodeJS.ProcessEnv): { home: string; database: string } {
  const settings = readSettings(env);
  if (settings.database.kind !== "sqlite") {
    throw new HomeBackupError(
      "this home's database is PostgreSQL (SKEIN_DB): back it up with pg_dump and check it after a restore with skein verify (docs/operations.md)",
    );
  }
  return { home: settings.home, database: settings.database.path };
}

/** Make `folder` (absent, or an empty folder) a private folder; throws when it holds anything. */
function emptyFolder(folder: string, what: string): void {
  if (existsSync(folder) && readdirSync(folder).length > 0) {
    throw new HomeBackupError(`${folder} is not empty: ${what} must go into a new or empty folder`);
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
}

/** Copy the home named by `env` (daemon running or not) into the new folder `folder`. */
export async function backupHome(env: NodeJS.ProcessEnv, folder: string): Promise<BackupSummary> {
  const started = performance.now();
  const { home, database } = sqliteDatabase(env);
  if (!existsSync(database)) throw new HomeBackupError(`there is no database to back up at ${database}`);
  emptyFolder(folder, "a backup");
  const target = backupPaths(folder);
  try {
    const source = new Database(database, { readonly: true, fileMustExist: true });
    try {
      // After the first step the rest in one: a copy the daemon's writes restart stays short.
      await source.backup(target.database, { progress: ({ totalPages }) => Math.max(100, totalPages) });
    } finally {
      source.close();
    }
    chmodSync(target.database, 0o600);
    const files = carriedFiles(home);
    for (const name of files) {
      copyFileSync(join(home, name), join(folder, name));
      chmodSync(join(folder, name), 0o600);
    }
    const checked = await checkDatabaseCopy(folder, target.database);
    const manifest: BackupManifest = {
      format: backupFormat,
      created_at: new Date().toISOString(),
      skein_version: packageVersion(),
      schema_version: checked.schemaVersion,
      database: "skein.sqlite",
      database_bytes: statSync(target.database).size,
      home_files: files,
      heads: checked.heads,
    };
    await writeFileAtomic(target.manifest, `${JSON.stringify(manifest, null, 2)}\n`, 0o600);
    return summary(folder, home, manifest, checked.entries, started);
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

/** Restore the backup in `folder` into the home named by `env`, which must be empty or absent. */
export async function restoreHome(env: NodeJS.ProcessEnv, folder: string): Promise<BackupSummary> {
  const started = performance.now();
  const source = backupPaths(folder);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(source.manifest, "utf8"));
  } catch (error) {
    throw new HomeBackupError(`${source.manifest} cannot be read: ${(error as Error).message}`);
  }
  const manifest = checkBackupManifest(source.manifest, raw);
  const { home, database } = sqliteDatabase(env);
  emptyFolder(home, "a restore");
  if (existsSync(database)) throw new HomeBackupError(`${database} exists: restore into a new database`);
  try {
    ensureHome(home);
    for (const name of manifest.home_files) {
      copyFileSync(join(folder, name), join(home, name));
      chmodSync(join(home, name), 0o600);
    }
    copyFileSync(join(folder, manifest.database), database);
    chmodSync(database, 0o600);
    const checked = await checkDatabaseCopy(home, database);
    const differs = JSON.stringify(checked.heads) !== JSON.stringify(manifest.heads);
    if (differs) throw new HomeBackupError(`the restored heads differ from ${source.manifest}'s`);
    return summary(folder, home, manifest, checked.entries, started);
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    if (existsSync(database)) rmSync(database, { force: true });
    throw error;
  }
}

function summary(
  folder: string,
  home: string,
  manifest: BackupManifest,
  entries: number,
  started: number,
): BackupSummary {
  return {
    folder,
    home,
    sessions: manifest.heads.length,
    entries,
    databaseBytes: manifest.database_bytes,
    elapsedMs: Math.round(performance.now() - started),
  };
}
