/** A daemon database in a fresh temporary folder, removed after the test. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { type DaemonDatabase, openDaemonDatabase } from "../../../src/daemon/storage/database.js";
import { insertSession } from "../../../src/daemon/storage/sessions-table.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";

/** A new folder that is deleted when the current test ends. */
export function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "skein-storage-"));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** A freshly opened database file, closed when the current test ends. */
export function tempDatabase(): { db: DaemonDatabase; path: string } {
  const path = join(tempFolder(), "skein.sqlite");
  const db = openDaemonDatabase(path);
  onTestFinished(() => {
    if (db.open) db.close();
  });
  return { db, path };
}

/** Insert a session row with defaults, created at `createdAt`. */
export function addSession(db: DaemonDatabase, id: string, createdAt = 1_700_000_000_000): void {
  insertSession(db, { id, workspace: "/tmp/work", createdAt });
}

/**
 * SQLite storage on a fresh database file whose statements are counted (`statementsRun(db)`),
 * closed when the current test ends; `folder` is its workspace folder too.
 */
export function countedSqliteStorage(): {
  storage: SqliteSessionStorage;
  db: DaemonDatabase;
  folder: string;
} {
  const folder = tempFolder();
  const db = openDaemonDatabase(join(folder, "skein.sqlite"), { countStatements: true });
  const storage = new SqliteSessionStorage(db, { ownsDb: true });
  onTestFinished(() => storage.close());
  return { storage, db, folder };
}
