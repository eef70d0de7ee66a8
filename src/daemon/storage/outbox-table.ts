/**
 * The `notification_outbox` table: webhook deliveries owed (daemon/notify delivers them). A row
 * is inserted in the transaction of the log entry it tells of (`RowWrites.notifications`), so
 * an event is queued exactly when its entry commits; a node claims due rows for a while (a
 * lease: `FOR UPDATE SKIP LOCKED` on PostgreSQL, so two nodes never claim one row at once) and
 * then deletes the row (delivered), moves its next attempt on (retry) or marks it given up.
 * A given-up row stays for an operator to look at until a later give-up finds it older than
 * its settlement's `forgetBefore` (at most `forgottenPerGiveUp` of them each time): a webhook
 * that stays down for months must not grow the table without end, and sweeping on a give-up
 * needs no timer of its own.
 *
 * Boundary rule: this table's statements only; every settling write is conditional on the
 * claim still being the caller's, so a node whose lease ran out changes nothing.
 */

import { limitClause } from "../../log/sql-limit.js";
import { unreachable } from "../../model/unreachable.js";
import { all, dialect, run, type SqlProgram } from "./sql-program.js";

/** A delivery to queue: the event's id (shared by its targets), where, and the exact body. */
export interface NewNotification {
  id: string;
  targetUrl: string;
  sessionId: string;
  event: string;
  body: string;
  createdAt: number;
}

/** A row a node claimed for delivery. */
export interface ClaimedNotification extends NewNotification {
  /** Attempts made before this one. */
  attempts: number;
}

/** Queue `notification`, due at once. */
export function* insertNotificationProgram(notification: NewNotification): SqlProgram<void> {
  const { id, targetUrl, sessionId, event, body, createdAt } = notification;
  yield* run(
    `INSERT INTO notification_outbox (id, target_url, session_id, event, body, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    id,
    targetUrl,
    sessionId,
    event,
    body,
    createdAt,
    createdAt,
  );
}

interface ClaimRow {
  id: string;
  target_url: string;
  session_id: string;
  event: string;
  body: string;
  created_at: number | string;
  attempts: number | string;
}

/** Whether any row is due and held by nobody at `now` (a read: an idle daemon's look writes nothing). */
export function* anyDueNotificationProgram(now: number): SqlProgram<boolean> {
  const rows = yield* all<{ due: number }>(
    `SELECT 1 AS due FROM notification_outbox
     WHERE gave_up_at IS NULL AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
     LIMIT 1`,
    now,
    now,
  );
  return rows.length > 0;
}

/**
 * When the next row becomes claimable (its attempt due and any claim on it lapsed), or null when
 * none is owed: how long the deliverer may sleep.
 */
export function* nextDueNotificationProgram(): SqlProgram<number | null> {
  const rows = yield* all<{ next: number | string | null }>(
    `SELECT min(CASE WHEN claimed_until IS NOT NULL AND claimed_until >= next_attempt_at
                     THEN claimed_until + 1 ELSE next_attempt_at END) AS next
     FROM notification_outbox WHERE gave_up_at IS NULL`,
  );
  const next = rows[0]?.next ?? null;
  return next === null ? null : Number(next);
}

/** Claim up to `limit` due rows nobody holds for `owner` until `until`; the rows claimed. */
export function* claimDueNotificationsProgram(
  owner: string,
  now: number,
  until: number,
  limit: number,
): SqlProgram<ClaimedNotification[]> {
  // PostgreSQL: rows another node is claiming right now are skipped, not waited for.
  const lock = (yield* dialect()) === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
  const rows = yield* all<ClaimRow>(
    `UPDATE notification_outbox SET claimed_by = ?, claimed_until = ?
     WHERE (id, target_url) IN (
       SELECT id, target_url FROM notification_outbox
       WHERE gave_up_at IS NULL AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
       ORDER BY next_attempt_at ${limitClause(limit)}${lock})
     RETURNING id, target_url, session_id, event, body, created_at, attempts`,
    owner,
    until,
    now,
    now,
  );
  return rows.map((row) => ({
    id: row.id,
    targetUrl: row.target_url,
    sessionId: row.session_id,
    event: row.event,
    body: row.body,
    createdAt: Number(row.created_at),
    attempts: Number(row.attempts),
  }));
}

/** What became of a claimed delivery. */
export type NotificationSettlement =
  | { kind: "delivered" }
  | { kind: "retry"; at: number; error: string }
  | { kind: "gave_up"; at: number; error: string; forgetBefore: number };

/** Most older given-up rows one give-up deletes (each give-up deletes a bounded amount). */
const forgottenPerGiveUp = 100;

/** Settle `owner`'s claim of one row (nothing when the claim is no longer `owner`'s). */
export function* settleNotificationProgram(
  key: { id: string; targetUrl: string },
  owner: string,
  settlement: NotificationSettlement,
): SqlProgram<void> {
  const where = "WHERE id = ? AND target_url = ? AND claimed_by = ?";
  if (settlement.kind === "delivered") {
    yield* run(`DELETE FROM notification_outbox ${where}`, key.id, key.targetUrl, owner);
    return;
  }
  const column = timeColumn(settlement.kind);
  yield* run(
    `UPDATE notification_outbox SET attempts = attempts + 1, ${column} = ?, last_error = ?,
     claimed_by = NULL, claimed_until = NULL ${where}`,
    settlement.at,
    settlement.error,
    key.id,
    key.targetUrl,
    owner,
  );
  if (settlement.kind !== "gave_up") return;
  // A subquery, as SQLite's DELETE takes no LIMIT of its own.
  yield* run(
    `DELETE FROM notification_outbox WHERE (id, target_url) IN (
       SELECT id, target_url FROM notification_outbox
       WHERE gave_up_at IS NOT NULL AND gave_up_at < ? ${limitClause(forgottenPerGiveUp)})`,
    settlement.forgetBefore,
  );
}

/** The column a failed attempt's time goes to: when to try again, or when it was given up. */
function timeColumn(kind: "retry" | "gave_up"): string {
  switch (kind) {
    case "retry":
      return "next_attempt_at";
    case "gave_up":
      return "gave_up_at";
    default:
      return unreachable(kind, "unknown notification settlement");
  }
}
