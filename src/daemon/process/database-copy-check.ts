/**
 * Checking a database copy (a backup, a restored home) the way the daemon would read it: every
 * session's whole log re-hashed and checked against its recorded head and that head's signature,
 * under the keys its home trusts (its own, config.json's `trustedHeadKeys`).
 *
 * Boundary rule: reads only, but for what opening a database does (the daemon's journal mode,
 * and migrations a copy from an older daemon lacks); nothing in the home is written.
 */
import { existsSync } from "node:fs";
import type { BackedUpHead } from "../../home/backup-manifest.js";
import { homePaths } from "../../home/home.js";
import { LogCorruptError } from "../../log/errors.js";
import { openDaemonDatabase } from "../storage/database.js";
import { SqliteSessionStorage } from "../storage/sqlite-session-storage.js";
import { ProviderConfigSource } from "./provider-config.js";
import { loadSigningKey } from "./signing-key.js";

/** What a checked copy holds: each session's head (in id order) and how many entries in all. */
export interface CheckedCopy {
  heads: BackedUpHead[];
  entries: number;
  schemaVersion: number;
}

/** A session's log in the copy does not verify. */
class CopyCorruptError extends Error {
  constructor(
    readonly sessionId: string,
    readonly position: number,
    readonly reason: string,
  ) {
    super(`session ${sessionId} does not verify at position ${position}: ${reason}`);
    this.name = "CopyCorruptError";
  }
}

/** Verify every session of the SQLite database at `database`, with the trust of the home `home`. */
export async function checkDatabaseCopy(home: string, database: string): Promise<CheckedCopy> {
  if (!existsSync(homePaths(home).signingKey)) {
    throw new Error(
      `${homePaths(home).signingKey} is missing: the heads cannot be checked without the home's key`,
    );
  }
  const { signer } = await loadSigningKey(home);
  const providers = new ProviderConfigSource(home);
  signer.trustFrom(() => providers.current().trustedHeadKeys ?? []);
  const storage = new SqliteSessionStorage(openDaemonDatabase(database), { signer, ownsDb: true });
  try {
    const heads: BackedUpHead[] = [];
    let entries = 0;
    const sessions = (await storage.listSessions()).map((row) => row.id).sort();
    for (const session of sessions) {
      try {
        entries += (await storage.readLog(session)).length;
      } catch (error) {
        if (error instanceof LogCorruptError)
          throw new CopyCorruptError(session, error.position, error.reason);
        throw error;
      }
      const record = await storage.readHeadRecord(session);
      if (record === null) continue;
      heads.push({
        session,
        position: record.position,
        hash: record.hash,
        key_id: record.signed?.key_id ?? null,
      });
    }
    return { heads, entries, schemaVersion: await storage.appliedSchemaVersion() };
  } finally {
    await storage.close();
  }
}
