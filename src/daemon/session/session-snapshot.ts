/**
 * Building a session's summary and snapshot (their wire shapes are src/api/session-snapshot.ts):
 * the JSON a client rebuilds its view from, sent by `GET /sessions/{id}`, by create, and in a
 * stream reset.
 *
 * Boundary rule: a pure function of what the actor and the database know; reading them is the
 * caller's job (inside the actor's mailbox, so the cursor and the history agree).
 */
import type { ApprovalMode, ApprovalPolicy, PendingApproval } from "../../api/approvals.js";
import type { BudgetView } from "../../api/budget.js";
import type { HistoryPage } from "../../api/history.js";
import type { CreateSessionBody } from "../../api/session-creation.js";
import type { SessionSettings } from "../../api/session-settings.js";
import type {
  SessionContext,
  SessionSnapshot,
  SessionStatus,
  SessionSummary,
  SessionUsage,
  TodoItem,
} from "../../api/session-snapshot.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import { maxTailBytes } from "../history/history-page.js";
import { type InputRow, pendingInputJson } from "../storage/inputs-table.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { SessionServices } from "./session-services.js";

/** The status of a session with no turn running. */
export const idleStatus: SessionStatus = {
  phase: "idle",
  run_id: null,
  interrupt_requested: false,
  blocking_reason: null,
};

/** Most bytes of a snapshot's JSON (the documented bound of every answer and frame). */
export const maxSnapshotBytes = 1024 * 1024;

/** A history page without entries or tokens: the snapshot's other fields are measured with it. */
export const emptyHistoryPage: HistoryPage = {
  items: [],
  older: null,
  newer: null,
  high_water: 0,
  byte_limited: false,
};

/** Room kept for a history page's own fields (its tokens and counters) besides its entries. */
const historyEnvelopeBytes = 8 * 1024;

/**
 * The byte budget of a snapshot's history entries: what the snapshot's other fields (measured:
 * `withoutHistory` is the snapshot with an empty history) leave of its bound, at most
 * `maxTailBytes`. The other fields are small but for what a client sent, which may reach a
 * creation's body limit more than once (the echoed request, the approval policy).
 */
export function historyBudget(withoutHistory: SessionSnapshot): number {
  const rest = Buffer.byteLength(JSON.stringify(withoutHistory));
  return Math.max(0, Math.min(maxTailBytes, maxSnapshotBytes - rest - historyEnvelopeBytes));
}

/** Whether two statuses say the same (a client would see no change between them). */
export function sameStatus(a: SessionStatus, b: SessionStatus): boolean {
  return (
    a.phase === b.phase &&
    a.run_id === b.run_id &&
    a.interrupt_requested === b.interrupt_requested &&
    a.blocking_reason?.code === b.blocking_reason?.code &&
    a.blocking_reason?.detail === b.blocking_reason?.detail
  );
}

/** The profile and model a session's settings resolve to now (a null one in the row means "the default"). */
export interface ResolvedProvider {
  provider_profile: string;
  model: string;
}

/** What a row that leaves its profile or model to the default resolves to now (null: nothing). */
export function resolvedProvider(
  row: SessionRow,
  describe: SessionServices["describeProvider"],
): ResolvedProvider | null {
  if (row.providerProfile !== null && row.model !== null) return null;
  try {
    return describe(row.providerProfile, row.model, {});
  } catch {
    // A profile removed from the config: the summary shows what the row says.
    return null;
  }
}

/**
 * The summary of a session row, with its live status and cursor when loaded. A profile or model
 * the row leaves to the default (after `PATCH {"model": null}`, say) is shown as `resolved`, what
 * the next turn uses, not as null, which clients read as "no provider".
 */
export function sessionSummary(
  row: SessionRow,
  status: SessionStatus,
  cursor: StreamCursor | null,
  resolved: ResolvedProvider | null = null,
): SessionSummary {
  return {
    id: row.id,
    name: row.name,
    workspace: row.workspace,
    parent_id: row.parentId,
    parent_call_id: row.task?.parentCallId ?? null,
    agent: row.task?.agent ?? null,
    created_at: new Date(row.createdAt).toISOString(),
    activity_at: new Date(row.activityAt).toISOString(),
    provider_profile: row.providerProfile ?? resolved?.provider_profile ?? null,
    model: row.model ?? resolved?.model ?? null,
    status,
    cursor: cursor === null ? null : { generation: cursor.generation, sequence: cursor.sequence },
    preview: row.preview,
    input_order: row.inputOrder,
    usage: row.usage,
    creation: row.creation,
  };
}

/**
 * The full snapshot of a loaded session. Built as one object literal, not as the summary spread
 * into a larger one: V8 builds an object that spreads another and adds a dozen fields several
 * times slower than a literal (a measured ~10x), and every read of a snapshot builds one.
 */
export function sessionSnapshot(
  row: SessionRow,
  status: SessionStatus,
  cursor: StreamCursor,
  pending: readonly InputRow[],
  approvals: { pending: PendingApproval[]; policy: ApprovalPolicy | null; mode: ApprovalMode },
  history: HistoryPage,
  settings: SessionSettings,
  context: SessionContext | null,
  todos: readonly TodoItem[],
  budget: BudgetView | null,
  totals: { usage: SessionUsage; costUsd: number | null } = {
    usage: row.usage,
    costUsd: context?.cost_usd ?? null,
  },
): SessionSnapshot {
  const summary = sessionSummary(row, status, cursor, settings.effective);
  return {
    id: summary.id,
    name: summary.name,
    workspace: summary.workspace,
    parent_id: summary.parent_id,
    parent_call_id: summary.parent_call_id,
    agent: summary.agent,
    created_at: summary.created_at,
    activity_at: summary.activity_at,
    provider_profile: summary.provider_profile,
    model: summary.model,
    status: summary.status,
    cursor: { generation: cursor.generation, sequence: cursor.sequence },
    preview: summary.preview,
    input_order: summary.input_order,
    usage: summary.usage,
    creation: {
      ...row.creation,
      submitted: row.creationRequest === null ? null : (JSON.parse(row.creationRequest) as CreateSessionBody),
    },
    pending_inputs: pending.map(pendingInputJson),
    pending_approvals: approvals.pending,
    approval_policy: approvals.policy,
    approval_mode: approvals.mode,
    history,
    settings,
    context,
    todos: todos.map((todo) => ({ ...todo })),
    budget,
    usage_total: totals.usage,
    cost_total_usd: totals.costUsd,
  };
}
