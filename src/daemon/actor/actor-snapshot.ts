/**
 * The snapshot of a loaded session, in two steps: its parts are taken inside the actor's mailbox
 * (so history, cursor and status agree), and its history is read after, outside it, from the log
 * the parts fixed, so a reconnecting client never holds up the session's commits.
 *
 * Boundary rule: reads only; the actor decides when each step runs.
 */

import type { ApprovalMode, ApprovalPolicy, PendingApproval } from "../../api/approvals.js";
import type { BudgetView } from "../../api/budget.js";
import type { HistoryPage } from "../../api/history.js";
import type { SessionSettings } from "../../api/session-settings.js";
import type {
  SessionContext,
  SessionSnapshot,
  SessionStatus,
  SessionUsage,
  TodoItem,
} from "../../api/session-snapshot.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import type { RequestConfig } from "../../model/request-config.js";
import { sessionBudgetView } from "../budget/budget-view.js";
import { taskAncestorBudgets } from "../budget/task-ancestors.js";
import { type HistoryLog, wholeLog } from "../history/history-log.js";
import { readTailPage } from "../history/history-page.js";
import type { SessionServices } from "../session/session-services.js";
import { type ProviderDescription, settingsOf } from "../session/session-settings.js";
import { emptyHistoryPage, historyBudget, sessionSnapshot } from "../session/session-snapshot.js";
import { addSessionUsage, costTotal, usageTotal } from "../session/usage-roll-up.js";
import type { InputRow } from "../storage/inputs-table.js";
import type { CreatedSession } from "../storage/session-storage.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { SessionParts } from "./session-parts.js";

/** What a snapshot is made of, taken in the mailbox; its history is read from `log` afterwards. */
export interface SnapshotParts {
  log: HistoryLog;
  row: SessionRow;
  status: SessionStatus;
  cursor: StreamCursor;
  pending: InputRow[];
  approvals: { pending: PendingApproval[]; policy: ApprovalPolicy | null; mode: ApprovalMode };
  settings: SessionSettings;
  context: SessionContext | null;
  todos: TodoItem[];
  budget: BudgetView | null;
}

/** What a snapshot takes of the actor at its cursor, before anything else can change. */
export interface SnapshotMoment {
  status: SessionStatus;
  cursor: StreamCursor;
  /** The running turn's usage streamed before `cursor` and not stored yet (null: no turn runs). */
  unstoredUsage: SessionUsage | null;
}

/**
 * Inside the mailbox: everything a snapshot holds but its history, as of `moment` (taken
 * first), and the log to read the history from. Its usage counts every `usage` event up to
 * its cursor, so a client that adds the events after it (a turn joined mid-way) ends with the
 * totals the turn's end stores.
 */
export async function snapshotParts(
  parts: Pick<SessionParts, "log" | "inputs" | "gate" | "compactor">,
  moment: SnapshotMoment,
  readRow: () => Promise<SessionRow>,
  services: Pick<SessionServices, "describeProvider" | "storage" | "turnSettings" | "now">,
): Promise<SnapshotParts> {
  const { status, cursor, unstoredUsage } = moment;
  const history = await parts.log.readableLog();
  const stored = await readRow();
  const row =
    unstoredUsage === null ? stored : { ...stored, usage: addSessionUsage(stored.usage, unstoredUsage) };
  const pending = await parts.inputs.pending();
  return withState(parts, { log: history, row, status, cursor, pending }, services);
}

/**
 * The snapshot of a session just created (`created`: what its creation commit wrote), taken
 * before anything else ran in its actor: its history is the log as appended, and it has no
 * input and no child yet (only its actor admits inputs and starts the turns that make children).
 */
export async function creationSnapshot(
  parts: Pick<SessionParts, "log" | "gate" | "compactor">,
  status: SessionStatus,
  cursor: StreamCursor,
  created: CreatedSession,
  services: Pick<
    SessionServices,
    "describeProvider" | "storage" | "turnSettings" | "now" | "historySecret" | "limitsOf"
  >,
): Promise<SessionSnapshot> {
  const { row, restored } = created;
  const known = { log: wholeLog(restored.entries), row, status, cursor, pending: [] };
  return finishSnapshot(await withState(parts, known, services), undefined, row.id, services, []);
}

/** The parts of a snapshot that come from the session's replayed state, the config and the budgets. */
async function withState(
  parts: Pick<SessionParts, "log" | "gate" | "compactor">,
  known: Pick<SnapshotParts, "log" | "row" | "status" | "cursor" | "pending">,
  services: Pick<SessionServices, "describeProvider" | "storage" | "turnSettings" | "now">,
): Promise<SnapshotParts> {
  const { log, gate, compactor } = parts;
  const { row } = known;
  const settings = settingsNow(row, log.state.config, services.describeProvider);
  // Listed, not spread: see sessionSnapshot on what V8 makes of a spread with fields added.
  return {
    log: known.log,
    row,
    status: known.status,
    cursor: known.cursor,
    pending: known.pending,
    approvals: { pending: gate.pending(), policy: log.state.approval_policy, mode: log.state.approval_mode },
    settings,
    context: compactor.context(row),
    todos: log.state.todos,
    // The session's own, its task ancestors' and its profile's budgets (a schedule's applies to
    // its firings' turns only).
    budget: await sessionBudgetView(
      services.storage,
      {
        sessionId: row.id,
        own: log.state.budget,
        config: services.turnSettings(row).budgets,
        profile: settings.effective?.provider_profile ?? row.providerProfile,
        schedule: null,
        ancestors: await taskAncestorBudgets(services.storage, row),
      },
      services.now(),
    ),
  };
}

/**
 * The snapshot of `parts` with its history read (outside the mailbox: the parts fix what is
 * read); `children`: the usage of the session's `task` children when known, else read.
 */
export async function finishSnapshot(
  parts: SnapshotParts,
  tail: number | undefined,
  sessionId: string,
  services: Pick<SessionServices, "historySecret" | "now" | "storage" | "limitsOf">,
  children?: Awaited<ReturnType<SessionServices["storage"]["descendantUsage"]>>,
): Promise<SessionSnapshot> {
  const descendants = children ?? (await services.storage.descendantUsage(sessionId));
  const totals = {
    usage: usageTotal(parts.row.usage, descendants),
    costUsd: costTotal(
      parts.context?.cost_usd ?? null,
      descendants,
      (profile, model) => services.limitsOf(profile, model)?.prices ?? null,
    ),
  };
  const withHistory = (history: HistoryPage): SessionSnapshot =>
    sessionSnapshot(
      parts.row,
      parts.status,
      parts.cursor,
      parts.pending,
      parts.approvals,
      history,
      parts.settings,
      parts.context,
      parts.todos,
      parts.budget,
      totals,
    );
  const history = await readTailPage(parts.log, {
    sessionId,
    secret: services.historySecret,
    now: services.now(),
    ...(tail === undefined ? {} : { tail }),
    // A page of no positions takes no entry, so its budget is never consulted: measuring the
    // rest of the snapshot for it (a JSON encoding of all of it) would be wasted.
    maxBytes: tail === 0 ? 0 : historyBudget(withHistory(emptyHistoryPage)),
  });
  return withHistory(history);
}

/** The session's settings with what they resolve to now (a profile removed from the config: none). */
function settingsNow(
  row: SessionRow,
  config: RequestConfig,
  describe: SessionServices["describeProvider"],
): SessionSettings {
  const state = { providerProfile: row.providerProfile, model: row.model, config };
  let effective: ProviderDescription | null;
  try {
    effective = describe(state.providerProfile, state.model, state.config);
  } catch {
    effective = null;
  }
  return settingsOf(state, effective);
}
