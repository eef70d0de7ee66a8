/**
 * What the one session storage (backend-session-storage.ts) needs of a database: its log store
 * (whose group commit every write goes through, see `TransactionalStore`), a runner for the SQL
 * programs (sql-program.ts) and what the backend keeps besides (a flush thread, a pool).
 *
 * Boundary rule: a backend says how to run things on its connection; what to run, in which
 * transaction and behind which fence, is the storage's. `Tx` is the handle a write gets (the
 * SQLite connection, a PostgreSQL client); on a synchronous connection `run` returns plain values,
 * so a write composed with `andThen` (log/awaitable.ts) stays synchronous.
 */
import type { Awaitable } from "../../log/awaitable.js";
import type { CheckpointRecords } from "../../log/checkpoint-records.js";
import type { TransactionalStore } from "../../log/store.js";
import type { SqlProgram } from "./sql-program.js";

export interface StorageBackend<Tx> {
  /** The session logs; its `commitQueue` is every write's group commit. */
  readonly log: TransactionalStore<Tx>;
  /** The sessions' signed state checkpoints (restore starts from them; see log/tail-restore.ts). */
  readonly checkpoints: CheckpointRecords<Tx>;
  /** Run `program` on `tx`, inside the write (and transaction) that holds it. */
  run<T>(tx: Tx, program: SqlProgram<T>): Awaitable<T>;
  /** Run a reading `program` outside the group commit. */
  read<T>(program: SqlProgram<T>): Promise<T>;
  /** Run `work` on a connection that holds no transaction (a check whose lock ends with its statement). */
  outsideTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** Figures besides the group commit's: the fsyncs the daemon ran itself, the statements and log pages counted. */
  stats(): { fsyncs?: number; statements?: number; walFrames?: number };
  /** Release what the backend holds, once the group commit has closed (flush, threads, connection). */
  close(): Promise<void>;
}
