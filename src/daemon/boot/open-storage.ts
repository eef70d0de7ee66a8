/** The daemon's storage, as `SKEIN_DB` selects it. */
import type pino from "pino";
import type { HeadSigner } from "../../log/head-signer.js";
import { unreachable } from "../../model/unreachable.js";
import type { DaemonSettings } from "../process/settings.js";
import { openDaemonDatabase } from "../storage/database.js";
import { openPgDaemonDatabase } from "../storage/pg-database.js";
import { PgSessionStorage } from "../storage/pg-session-storage.js";
import type { SessionStorage } from "../storage/session-storage.js";
import { SqliteSessionStorage } from "../storage/sqlite-session-storage.js";

/** The storage `SKEIN_DB` selects: the SQLite file (closed with the storage) or PostgreSQL. */
export async function openStorage(
  settings: DaemonSettings,
  signer: HeadSigner,
  logger: pino.Logger,
): Promise<SessionStorage> {
  const target = settings.database;
  switch (target.kind) {
    case "sqlite": {
      return new SqliteSessionStorage(
        openDaemonDatabase(target.path, { countStatements: settings.countStatements }),
        {
          signer,
          ownsDb: true,
          slowDisk: settings.slowDisk,
          workerStartsLogs: settings.workerStartsLogs,
          onCheckpointError: (message) => logger.warn({ err: message }, "SQLite checkpoint failed; retrying"),
        },
      );
    }
    case "postgres":
      // Half a lease (at least 1 s): a node paused mid-transaction loses its locks before its leases expire.
      return new PgSessionStorage(
        await openPgDaemonDatabase(target.url, {
          idleInTransactionMs: Math.max(1000, (settings.leaseSeconds * 1000) / 2),
        }),
        { signer },
      );
    default:
      unreachable(target, "unknown database");
  }
}
