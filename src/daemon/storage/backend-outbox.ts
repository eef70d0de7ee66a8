/**
 * The notification outbox (`NotificationOutbox`) over a database backend: claims and
 * settlements go through the backend's group commit like every write, under a key of their
 * own (they are no session's, so no lease fences them); the look for due rows is a read first.
 *
 * Boundary rule: composition only; the statements are outbox-table.ts's.
 */
import {
  anyDueNotificationProgram,
  type ClaimedNotification,
  claimDueNotificationsProgram,
  type NotificationSettlement,
  nextDueNotificationProgram,
  settleNotificationProgram,
} from "./outbox-table.js";
import type { NotificationOutbox } from "./session-storage.js";
import type { StorageBackend } from "./storage-backend.js";

/** The outbox stored through `backend`. */
export function backendOutbox<Tx>(backend: StorageBackend<Tx>): NotificationOutbox {
  const queue = backend.log.commitQueue;
  return {
    // The look every poll takes is a read: a write transaction (and on SQLite the write lock and
    // a commit) is taken only when some row is due.
    claim: async (owner, now, until, limit) =>
      (await backend.read(anyDueNotificationProgram(now)))
        ? queue.run("notification-outbox", (tx) =>
            backend.run(tx, claimDueNotificationsProgram(owner, now, until, limit)),
          )
        : [],
    nextDue: () => backend.read(nextDueNotificationProgram()),
    settle: (row: ClaimedNotification, owner: string, settlement: NotificationSettlement) =>
      queue.run("notification-outbox", (tx) =>
        backend.run(tx, settleNotificationProgram(row, owner, settlement)),
      ),
  };
}
