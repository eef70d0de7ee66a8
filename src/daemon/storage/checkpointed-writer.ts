/**
 * A loaded session's writer on a database backend, keeping the session's signed state
 * checkpoint as it goes (log/state-checkpoint.ts): when a commit stores a compaction, or the head
 * has moved a checkpoint spacing past the last one, the replayed state at that head is written
 * as the new checkpoint in the next group commit, so the next load restores from there.
 *
 * Boundary rule: the checkpoint is taken when the commit is written (the writer's state then is
 * exactly the replay up to its head) and written after it, in a transaction of its own: it only
 * ever names an entry already committed, and a checkpoint that fails to be written costs the
 * next load time, never the append.
 */
import type { Awaitable } from "../../log/awaitable.js";
import type { LogEntry } from "../../log/entries.js";
import { SessionWriter } from "../../log/session-writer.js";
import { checkpointDue, checkpointOf } from "../../log/state-checkpoint.js";
import type { Store } from "../../log/store.js";
import type { RestoredLog } from "../../log/tail-restore.js";
import type { RowWrites, StoredSessionWriter } from "./session-storage.js";
import type { StorageBackend } from "./storage-backend.js";

/**
 * The writer of `sessionId` restored as `restored`, appending through `log` (the backend's, or
 * it behind a fence) with `rowWrites` in each append's transaction.
 */
export function checkpointedWriter<Tx>(
  backend: StorageBackend<Tx>,
  log: Store<Tx>,
  sessionId: string,
  restored: RestoredLog,
  rowWrites: (tx: Tx, writes: RowWrites) => Awaitable<void>,
): StoredSessionWriter {
  const head = restored.entries[restored.entries.length - 1];
  const writer =
    head === undefined
      ? SessionWriter.forNewSession(log, sessionId)
      : SessionWriter.fromState(log, sessionId, head, restored.state);
  let lastCheckpoint = restored.checkpoint?.position ?? -1;
  const keepCheckpoint = (entries: readonly LogEntry[]): void => {
    const hash = writer.headHash;
    if (hash === null || !checkpointDue(lastCheckpoint, writer.position, entries)) return;
    lastCheckpoint = writer.position;
    const checkpoint = checkpointOf(writer.state, { position: writer.position, hash });
    backend.log.commitQueue
      .run(sessionId, (tx) => backend.checkpoints.write(tx, sessionId, checkpoint))
      // Only the next load's time depends on it: it restores from the checkpoint before.
      .catch(() => undefined);
  };
  return {
    sessionId,
    get headHash() {
      return writer.headHash;
    },
    get position() {
      return writer.position;
    },
    get state() {
      return writer.state;
    },
    placed: (more) => writer.placed(more),
    append: (more, writes, options = {}) =>
      writer.append(more, (tx) => rowWrites(tx, writes), {
        onWritten: (placed) => {
          keepCheckpoint(more);
          options.onWritten?.(placed);
        },
      }),
  };
}
