/**
 * The session snapshot (spec §3): the JSON a client rebuilds its view from, sent by
 * `GET /sessions/{id}`, by create, and in a stream reset.
 *
 * Boundary rule: a pure function of what the actor and the database know; reading them is the
 * caller's job (inside the actor's mailbox, so the cursor and the history agree).
 */
import type { HistoryPage } from "../history/history-page.js";
import type { SessionPreview } from "../history/preview.js";
import { type InputRow, type PendingInputJson, pendingInputJson } from "../storage/inputs-table.js";
import type { SessionCreation, SessionRow, SessionUsage } from "../storage/sessions-table.js";
import type { StreamCursor } from "../stream/session-event.js";

/** The `status` object of a snapshot and of `status` events. */
export interface SessionStatus {
  phase: "idle" | "running";
  run_id: string | null;
  interrupt_requested: boolean;
  blocking_reason: null | { code: string; detail: string };
}

/** A session as the collection lists it (`GET /sessions`). */
export interface SessionSummary {
  id: string;
  name: string | null;
  workspace: string;
  parent_id: string | null;
  created_at: string;
  activity_at: string;
  provider_profile: string | null;
  model: string | null;
  status: SessionStatus;
  /** Null when the session's actor is not loaded. */
  cursor: { generation: string; sequence: number } | null;
  preview: SessionPreview;
  input_order: number;
  usage: SessionUsage;
  creation: SessionCreation;
}

export interface SessionSnapshot extends SessionSummary {
  /** A snapshot is only ever taken of a loaded session. */
  cursor: { generation: string; sequence: number };
  pending_inputs: PendingInputJson[];
  history: HistoryPage;
}

/** The status of a session with no turn running. */
export const idleStatus: SessionStatus = {
  phase: "idle",
  run_id: null,
  interrupt_requested: false,
  blocking_reason: null,
};

/** The summary of a session row, with its live status and cursor when loaded. */
export function sessionSummary(
  row: SessionRow,
  status: SessionStatus,
  cursor: StreamCursor | null,
): SessionSummary {
  return {
    id: row.id,
    name: row.name,
    workspace: row.workspace,
    parent_id: row.parentId,
    created_at: new Date(row.createdAt).toISOString(),
    activity_at: new Date(row.activityAt).toISOString(),
    provider_profile: row.providerProfile,
    model: row.model,
    status,
    cursor: cursor === null ? null : { generation: cursor.generation, sequence: cursor.sequence },
    preview: row.preview,
    input_order: row.inputOrder,
    usage: row.usage,
    creation: row.creation,
  };
}

/** The full snapshot of a loaded session. */
export function sessionSnapshot(
  row: SessionRow,
  status: SessionStatus,
  cursor: StreamCursor,
  pending: readonly InputRow[],
  history: HistoryPage,
): SessionSnapshot {
  return {
    ...sessionSummary(row, status, cursor),
    cursor: { generation: cursor.generation, sequence: cursor.sequence },
    pending_inputs: pending.map(pendingInputJson),
    history,
  };
}
