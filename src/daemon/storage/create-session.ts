/**
 * A new session written in one transaction: its row with its preview, its first log entries, what
 * its first input writes (its admission, its turn's start), and (cluster mode) its lease record;
 * answered with what that transaction wrote (the lease's epoch included), so the session's actor
 * is built without reading any of it back.
 *
 * Boundary rule: the creation's transaction only; BackendSessionStorage.createSession calls it.
 */
import type { SessionPreview } from "../../api/session-snapshot.js";
import { andThen } from "../../log/awaitable.js";
import { collectState } from "../../log/collect-state.js";
import type { LogEntry } from "../../log/entries.js";
import { createLog } from "../../log/session-writer.js";
import { GuardedLog } from "./guarded-log.js";
import { createSessionRowProgram, finishSessionCreationProgram, rowWritesProgram } from "./row-writes.js";
import type { CreatedSession, RowWrites, WriteFence } from "./session-storage.js";
import type { NewSession, SessionRow } from "./sessions-table.js";
import type { StorageBackend } from "./storage-backend.js";

/**
 * Create session `row` with `entries` (a session_start first) and `preview` on `backend`, and
 * `writes` (a first input's admission, its turn's start) in the same transaction after them.
 */
export async function createSessionOn<Tx>(
  backend: StorageBackend<Tx>,
  fence: WriteFence<Tx> | null,
  row: NewSession,
  entries: readonly LogEntry[],
  preview: SessionPreview,
  writes?: RowWrites,
): Promise<CreatedSession> {
  // The row before the entries: an id taken is `SessionExistsError`, not a conflict with its log.
  // A creation records its lease rather than checking one (it has none yet).
  let inserted: SessionRow | undefined;
  let epoch: number | null = null;
  const log = new GuardedLog(backend.log, (tx) =>
    andThen(backend.run(tx, createSessionRowProgram(row, preview)), (stored) => {
      inserted = stored;
    }),
  );
  const written = await createLog(log, row.id, entries, (tx) =>
    andThen(
      andThen(backend.run(tx, finishSessionCreationProgram(row.id)), () =>
        writes === undefined ? undefined : backend.run(tx, rowWritesProgram(row.id, writes)),
      ),
      () =>
        fence === null
          ? undefined
          : andThen(fence.created(tx, row.id), (taken) => {
              epoch = taken;
            }),
    ),
  );
  // The row as its INSERT returned it (its preview included), with the input order its first
  // input's admission then wrote.
  const inputOrder = writes?.admission?.order ?? inserted!.inputOrder;
  return {
    row: { ...inserted!, inputOrder },
    restored: { state: collectState(written), entries: written, checkpoint: null },
    epoch,
  };
}
