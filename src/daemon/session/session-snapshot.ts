/**
 * Building a session's summary and snapshot (their wire shapes are src/api/session-snapshot.ts):
 * the JSON a client rebuilds its view from, sent by `GET /sessions/{id}`, by create, and in a
 * stream reset.
 *
 * Boundary rule: a pure function of what the actor and the database know; reading them is the
 * caller's job (inside the actor's mailbox, so the cursor and the history agree).
 */
import type { ApprovalPolicy, PendingApproval } from "../../api/approvals.js";
import type { HistoryPage } from "../../api/history.js";
import type { SessionSettings } from "../../api/session-settings.js";
import type {
  SessionContext,
  SessionSnapshot,
  SessionStatus,
  SessionSummary,
} from "../../api/session-snapshot.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import { type InputRow, pendingInputJson } from "../storage/inputs-table.js";
import type { SessionRow } from "../storage/sessions-table.js";

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
  approvals: { pending: PendingApproval[]; policy: ApprovalPolicy | null },
  history: HistoryPage,
  settings: SessionSettings,
  context: SessionContext | null,
): SessionSnapshot {
  return {
    ...sessionSummary(row, status, cursor),
    cursor: { generation: cursor.generation, sequence: cursor.sequence },
    pending_inputs: pending.map(pendingInputJson),
    pending_approvals: approvals.pending,
    approval_policy: approvals.policy,
    history,
    settings,
    context,
  };
}
