/**
 * The notification outbox (`NotificationOutbox`) over a database backend: claims and
 * settlements go through the backend's group commit like every write, under a key of their
 * own (they are no session's, so no lease fences them).
 *
 * Boundary rule: composition only; the statements are outbox-table.ts's.
 */
import {
  type ClaimedNotification,
  claimDueNotificationsProgram,
  type NotificationSettlement,
  settleNotificationProgram,
} from "./outbox-table.js";
import type { NotificationOutbox } from "./session-storage.js";
import type { StorageBackend } from "./storage-backend.js";

/** The outbox stored through `backend`. */
export function backendOutbox<Tx>(backend: StorageBackend<Tx>): NotificationOutbox {
  const queue = backend.log.commitQueue;
  return {
    claim: (owner, now, until, limit) =>
      queue.run("notification-outbox", (tx) =>
        backend.run(tx, claimDueNotificationsProgram(owner, now, until, limit)),
      ),
    settle: (row: ClaimedNotification, owner: string, settlement: NotificationSettlement) =>
      queue.run("notification-outbox", (tx) =>
        backend.run(tx, settleNotificationProgram(row, owner, settlement)),
      ),
  };
}
