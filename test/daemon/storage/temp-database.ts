/** A daemon database in a fresh temporary folder, removed after the test. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { type DaemonDatabase, openDaemonDatabase } from "../../../src/daemon/storage/database.js";
import { insertSession } from "../../../src/daemon/storage/sessions-table.js";

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
