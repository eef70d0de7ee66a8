/**
 * The storage port on one SQLite file: the log's `transcript` tables (through `SqliteStore`) and
 * the daemon's `sessions`, `inputs`, `turns` and `rejected_creations` tables on one connection,
 * with one group commit for both, so all the writes of one event-loop turn (many sessions'
 * admissions and steps) share one transaction and one fsync, and a session's log and its rows
 * never disagree. The connection runs at synchronous=NORMAL and the write-ahead log is flushed
 * off the main thread (log/wal-sync.ts): a write resolves once it is on disk, and the event loop
 * keeps streaming while the disk works. Checkpoints run on a worker thread (wal-checkpointer.ts),
 * which, with `workerStartsLogs`, also starts each new log in its turn (log-write-turn.ts), so
 * that no commit here fsyncs the new log's header on the event loop (why that fsync must stay,
 * and OFF is no way out: there; why it is off by default: docs/architecture.md, Storage).
 *
 * Boundary rule: this file only builds the SQLite backend; what the storage does with it is
 * backend-session-storage.ts's, the same as on PostgreSQL.
 */

import type { HeadSigner } from "../../log/head-signer.js";
import { LogWriteTurn } from "../../log/log-write-turn.js";
import { SqliteCheckpointRecords } from "../../log/sqlite-checkpoint-records.js";
import { SqliteCommitQueue } from "../../log/sqlite-commit-queue.js";
import { SqliteStore, type SqliteTransaction } from "../../log/sqlite-store.js";
import { WalCheckpointer } from "../../log/wal-checkpointer.js";
import { type SlowDisk, WalSync } from "../../log/wal-sync.js";
import { BackendSessionStorage } from "./backend-session-storage.js";
import { type DaemonDatabase, statementsRun, walFramesWritten } from "./database.js";
import { runSqlite } from "./sqlite-runner.js";
import type { StorageBackend } from "./storage-backend.js";

/** How SQLite storage is built (see the constructor). */
export interface SqliteStorageOptions {
  signer?: HeadSigner;
  ownsDb?: boolean;
  slowDisk?: SlowDisk | null;
  onCheckpointError?: (message: string) => void;
  /** At most one checkpoint (and new log) per this many ms (tests; default: the checkpointer's). */
  checkpointIntervalMs?: number;
  /**
   * The checkpoint worker starts each new write-ahead log (SKEIN_SQLITE_WORKER_STARTS_LOGS=1), so
   * no commit fsyncs a new log's header on the event loop. Off by default: under a burst it cost
   * more than the stall it removes (see docs/architecture.md, Storage).
   */
  workerStartsLogs?: boolean;
}

export class SqliteSessionStorage extends BackendSessionStorage<SqliteTransaction> {
  readonly db: DaemonDatabase;
  readonly log: SqliteStore;

  /**
   * Storage on an open daemon database (see database.ts); heads are signed by `signer` when
   * given; `ownsDb`: close() closes the database too; `slowDisk`: a test-only delay per flush;
   * `onCheckpointError` hears of a failed checkpoint (the next one retries);
   * `checkpointIntervalMs` spaces checkpoints (tests); `workerStartsLogs`: see the option.
   */
  constructor(db: DaemonDatabase, options: SqliteStorageOptions = {}) {
    const backend = sqliteBackend(db, options);
    super(backend);
    this.db = db;
    this.log = backend.log;
  }
}

function sqliteBackend(
  db: DaemonDatabase,
  options: SqliteStorageOptions,
): StorageBackend<SqliteTransaction> & { log: SqliteStore } {
  let sync: WalSync | null = null;
  let checkpointer: WalCheckpointer | null = null;
  let queue: SqliteCommitQueue;
  if (db.memory) {
    queue = new SqliteCommitQueue(db);
  } else {
    // Commits only write the log; WalSync makes them durable before anyone is told, and the
    // checkpointer copies the log back off the main thread.
    db.pragma("synchronous = NORMAL");
    db.pragma("wal_autocheckpoint = 0");
    const flusher = new WalSync(db.name, { slowDisk: options.slowDisk ?? null });
    // The worker may start each new log, so no commit here fsyncs its header on the event loop.
    const turn = options.workerStartsLogs === true ? new LogWriteTurn() : undefined;
    const copier = new WalCheckpointer(db.name, {
      intervalMs: options.checkpointIntervalMs,
      onError: options.onCheckpointError,
      restartsLog: turn,
      // Without the worker, SQLite checkpoints inside commits again (SQLite's default size).
      onDead: () => {
        if (db.open) db.pragma("wal_autocheckpoint = 1000");
      },
    });
    sync = flusher;
    checkpointer = copier;
    queue = new SqliteCommitQueue(db, {
      durable: async () => {
        await flusher.durable();
        copier.written();
      },
      turn,
    });
  }
  const log = new SqliteStore(db, { commitQueue: queue, signer: options.signer });
  return {
    log,
    checkpoints: new SqliteCheckpointRecords(db, options.signer),
    run: (tx, program) => runSqlite(tx, program),
    read: async (program) => runSqlite(db, program),
    outsideTransaction: (work) => work(db),
    stats: () => {
      const statements = statementsRun(db);
      const walFrames = walFramesWritten(db);
      return {
        fsyncs: sync?.flushes ?? 0,
        ...(statements === null ? {} : { statements }),
        ...(walFrames === null ? {} : { walFrames }),
      };
    },
    close: async () => {
      // What the queue committed last is flushed before the connection goes.
      await sync?.durable().catch(() => undefined);
      await sync?.close();
      await checkpointer?.close();
      await log.close();
      if (options.ownsDb === true && db.open) db.close();
    },
  };
}
