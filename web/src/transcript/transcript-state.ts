/**
 * A session's transcript as the page shows it, built from the snapshot and the stream's events.
 *
 * Pure and immutable: every change returns a new state (React re-renders from it). Nothing is
 * shown twice: committed entries are kept by id, and streamed text (a draft) lives only until
 * the entry that commits it arrives, or its turn ends. After a reset (a daemon restart, a lost
 * replay) the drafts are dropped, the snapshot's entries merged in by id, and a notice says so;
 * entries between the last one known and the snapshot's tail are paged in by the caller
 * (`missedEntriesToken`) and merged with `mergeEntries`.
 */
import type { HistoryEntry, HistoryPage } from "../../../src/api/history.js";
import type { InputReceipt } from "../../../src/api/inputs.js";
import type { SessionEvent } from "../../../src/api/session-events.js";
import type { SessionSnapshot, SessionStatus, SessionUsage } from "../../../src/api/session-snapshot.js";
import type { StreamBatch } from "../../../src/client/stream-batch.js";
import { applyApprovalEvent, type PendingApproval } from "../approvals/approval-state.js";
import {
  applyChildApprovalEvent,
  applyTaskEvent,
  type ChildApprovals,
  forgetChildApprovals,
  noteChildAsked,
  type TaskProgress,
} from "./task-state.js";

/** Text streamed for a model message that is not committed yet. */
export interface Draft {
  messageId: string;
  turnId: string;
  kind: "text" | "thinking";
  text: string;
  /** Its start was streamed before a reset and is not in `text`. */
  partial: boolean;
}

/** Text streamed for a turn that was interrupted before it was committed: kept where it stood. */
export interface InterruptedDraft {
  draft: Draft;
  /** The id of the entry it follows (null: before every entry shown). */
  afterEntryId: string | null;
}

/** A message sent from this page whose user entry has not arrived yet. */
export interface SentInput {
  inputId: string;
  text: string;
}

export interface TranscriptState {
  summary: Omit<SessionSnapshot, "history" | "pending_inputs" | "status" | "usage" | "cursor">;
  /** Committed entries, oldest first. */
  entries: readonly HistoryEntry[];
  ids: ReadonlySet<string>;
  drafts: readonly Draft[];
  /**
   * What interrupted turns had streamed that no committed entry holds: the daemon logs an
   * interrupted answer (marked) with the turn's end, which replaces its drafts; these keep
   * only what it did not log.
   */
  interrupted: readonly InterruptedDraft[];
  /** Tool calls that started and have not ended. */
  runningTools: ReadonlySet<string>;
  status: SessionStatus;
  usage: SessionUsage;
  /** A token for the history page before the oldest entry shown, or null at the beginning. */
  older: string | null;
  pendingInputs: ReadonlySet<string>;
  sent: readonly SentInput[];
  /** The highest acceptance order seen (an interrupt cancels queued inputs up to it). */
  inputOrder: number;
  errors: readonly { turnId: string | null; code: string; message: string }[];
  notice: string | null;
  approvals: readonly PendingApproval[];
  /** The `task` calls whose child the stream announced, by call id. */
  tasks: ReadonlyMap<string, TaskProgress>;
  /** The calls its `task` children wait on, relayed here, by child session id. */
  childApprovals: ChildApprovals;
  /** Message ids seen before the last reset (their drafts restart partial). */
  seenMessages: ReadonlySet<string>;
}

/** The state a snapshot describes (the first frame of a stream, or a session just created). */
export function fromSnapshot(snapshot: SessionSnapshot): TranscriptState {
  const { history, pending_inputs, status, usage, cursor: _cursor, ...summary } = snapshot;
  return {
    summary,
    entries: history.items,
    ids: new Set(history.items.map((entry) => entry.id)),
    drafts: [],
    interrupted: [],
    runningTools: new Set(),
    status,
    usage,
    older: history.older,
    pendingInputs: new Set(pending_inputs.map((input) => input.id)),
    sent: [],
    inputOrder: snapshot.input_order,
    errors: [],
    notice: null,
    approvals: pendingApprovalsOf(snapshot),
    tasks: new Map(),
    childApprovals: new Map(),
    seenMessages: new Set(),
  };
}

/**
 * The token to page back from when a reset's snapshot may not reach the entries already
 * shown: its tail starts with an entry not known here and there is more before it.
 */
export function missedEntriesToken(state: TranscriptState, snapshot: SessionSnapshot): string | null {
  const first = snapshot.history.items[0];
  if (state.entries.length === 0 || first === undefined || state.ids.has(first.id)) return null;
  return snapshot.history.older;
}

/** Apply one frame: its reset (if any), then its events in order. */
export function applyBatch(state: TranscriptState | null, batch: StreamBatch): TranscriptState | null {
  let next = state;
  if (batch.reset !== null) {
    next =
      next === null
        ? fromSnapshot(batch.reset.snapshot)
        : afterReset(next, batch.reset.snapshot, batch.reset.reason);
  }
  if (next === null) return null;
  for (const event of batch.events) next = applyEvent(next, event);
  return next;
}

/** Merge entries (a page of older history, or entries missed while away) by id, in log order. */
export function mergeEntries(state: TranscriptState, entries: readonly HistoryEntry[]): TranscriptState {
  const fresh = entries.filter((entry) => !state.ids.has(entry.id));
  if (fresh.length === 0) return state;
  const ids = new Set(state.ids);
  for (const entry of fresh) ids.add(entry.id);
  return { ...state, entries: inLogOrder([...fresh, ...state.entries]), ids };
}

/** Merge a page read backwards from `older`, and move `older` on to the page's own. */
export function mergeOlderPage(state: TranscriptState, page: HistoryPage): TranscriptState {
  return { ...mergeEntries(state, page.items), older: page.older };
}

/** Remember a message sent from here until its user entry arrives. */
export function noteSent(state: TranscriptState, input: SentInput): TranscriptState {
  return { ...state, sent: [...state.sent, input] };
}

/** Forget a message sent from here that the daemon refused. */
export function dropSent(state: TranscriptState, inputId: string): TranscriptState {
  return { ...state, sent: state.sent.filter((input) => input.inputId !== inputId) };
}

function afterReset(state: TranscriptState, snapshot: SessionSnapshot, reason: string): TranscriptState {
  const fresh = fromSnapshot(snapshot);
  const merged = mergeEntries({ ...state, ...withoutHistory(fresh) }, snapshot.history.items);
  const unsaved = state.drafts.some((draft) => draft.text !== "");
  const seenMessages = new Set(state.seenMessages);
  for (const draft of state.drafts) seenMessages.add(draft.messageId);
  const why =
    reason === "generation_changed" ? "the daemon or the session restarted" : "the stream fell behind";
  return {
    ...merged,
    older: state.entries.length === 0 ? fresh.older : state.older,
    drafts: [],
    runningTools: new Set(),
    sent: state.sent.filter((input) => !merged.entries.some((entry) => entry.input_id === input.inputId)),
    seenMessages,
    notice: `Reconnected: ${why}; continued from the saved history${
      unsaved ? " (streamed text that was never saved was dropped)" : ""
    }.`,
  };
}

/** The parts of a fresh state a reset takes over (everything but the history and local state). */
function withoutHistory(fresh: TranscriptState): Partial<TranscriptState> {
  return {
    summary: fresh.summary,
    status: fresh.status,
    usage: fresh.usage,
    pendingInputs: fresh.pendingInputs,
    inputOrder: fresh.inputOrder,
    approvals: fresh.approvals,
  };
}

function applyEvent(state: TranscriptState, event: SessionEvent): TranscriptState {
  switch (event.type) {
    case "status":
      return { ...state, status: { ...state.status, ...event.data } };
    case "input":
      return applyReceipt(state, event.data.input);
    case "text":
    case "thinking":
      return appendDelta(state, event.type, event.data.run_id, event.data.message_id, event.data.text);
    case "message":
      return applyCommittedEntry(state, event.data.entry);
    case "tool": {
      const runningTools = new Set(state.runningTools);
      if (event.data.result === null) runningTools.add(event.data.tool_call_id);
      else runningTools.delete(event.data.tool_call_id);
      return { ...state, runningTools };
    }
    case "usage":
      return applyUsage(state, event.data);
    case "turn_completed": {
      // The turn's tasks are over: a child's call still listed would be answered too late.
      const childApprovals = forgetChildApprovals(state.childApprovals, null);
      return applyTurnCompleted({ ...state, childApprovals }, event.data);
    }
    case "error":
      return {
        ...state,
        errors: [
          ...state.errors.slice(-4),
          { turnId: event.data.run_id, code: event.data.code, message: event.data.message },
        ],
      };
    case "retry":
      return {
        ...state,
        notice:
          event.data.adjusted === undefined
            ? `Retrying the model request (attempt ${event.data.attempt}): ${event.data.reason}`
            : `The provider refused the request; sent it again without ${event.data.adjusted.join(", ")}.`,
      };
    case "committed":
      return state;
    case "approval_requested":
    case "approval_resolved": {
      const childId = event.data.session_id;
      if (childId === undefined) return { ...state, approvals: applyApprovalEvent(state.approvals, event) };
      // A `task` child's call, relayed: shown (and answered) in its task block.
      const childApprovals = applyChildApprovalEvent(state.childApprovals, childId, event);
      const tasks = event.type === "approval_requested" ? noteChildAsked(state.tasks, childId) : state.tasks;
      return { ...state, tasks, childApprovals };
    }
    case "task_started":
    case "task_completed":
      // Shown in the call's task block (task-view.tsx), not as a notice.
      return {
        ...state,
        tasks: applyTaskEvent(state.tasks, event),
        childApprovals:
          event.type === "task_completed"
            ? forgetChildApprovals(state.childApprovals, event.data.child_session_id)
            : state.childApprovals,
      };
    case "compaction_started":
      return { ...state, notice: "Compacting the model's context…" };
    case "compaction_completed":
      return {
        ...state,
        notice: `The model's context was compacted (${event.data.before_tokens} → ${event.data.after_tokens} tokens).`,
      };
    case "compaction_failed":
      return { ...state, notice: `Compaction failed: ${event.data.message}` };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** A model request's usage, added to the totals. */
function applyUsage(
  state: TranscriptState,
  usage: Extract<SessionEvent, { type: "usage" }>["data"],
): TranscriptState {
  return {
    ...state,
    usage: {
      prompt_tokens: state.usage.prompt_tokens + usage.prompt_tokens,
      completion_tokens: state.usage.completion_tokens + usage.completion_tokens,
      cached_prompt_tokens: state.usage.cached_prompt_tokens + usage.cached_prompt_tokens,
      total_tokens: state.usage.total_tokens + usage.total_tokens,
    },
    summary: { ...state.summary, model: usage.model },
  };
}

/** A turn's end: its drafts go (an interrupted turn's are kept, marked), and a notice unless it completed. */
function applyTurnCompleted(
  state: TranscriptState,
  ended: Extract<SessionEvent, { type: "turn_completed" }>["data"],
): TranscriptState {
  return {
    ...state,
    drafts: state.drafts.filter((draft) => draft.turnId !== ended.run_id),
    interrupted:
      ended.state === "interrupted"
        ? [...state.interrupted, ...keptDrafts(state, ended.run_id)]
        : state.interrupted,
    notice: turnEndNotice(ended.state, ended.outcome) ?? state.notice,
  };
}

/** An input's receipt: pending or not any more; a cancelled one is no longer shown as sent. */
function applyReceipt(state: TranscriptState, receipt: InputReceipt): TranscriptState {
  const pendingInputs = new Set(state.pendingInputs);
  if (receipt.delivery === "pending") pendingInputs.add(receipt.id);
  else pendingInputs.delete(receipt.id);
  const sent =
    receipt.delivery === "cancelled"
      ? state.sent.filter((input) => input.inputId !== receipt.id)
      : state.sent;
  return {
    ...state,
    pendingInputs,
    sent,
    inputOrder: Math.max(state.inputOrder, receipt.acceptance_order),
  };
}

/** A committed entry: into the history, replacing the drafts of its turn and its sent input. */
function applyCommittedEntry(state: TranscriptState, entry: HistoryEntry): TranscriptState {
  const merged = mergeEntries(state, [entry]);
  const commitsDrafts = entry.kind === "assistant" || entry.kind === "thinking" || entry.kind === "tool_call";
  return {
    ...merged,
    drafts: commitsDrafts ? merged.drafts.filter((draft) => draft.turnId !== entry.turn_id) : merged.drafts,
    sent:
      entry.input_id === null ? merged.sent : merged.sent.filter((input) => input.inputId !== entry.input_id),
  };
}

function appendDelta(
  state: TranscriptState,
  kind: "text" | "thinking",
  turnId: string,
  messageId: string,
  text: string,
): TranscriptState {
  const index = state.drafts.findIndex((draft) => draft.messageId === messageId);
  if (index < 0) {
    const draft: Draft = { messageId, turnId, kind, text, partial: state.seenMessages.has(messageId) };
    return { ...state, drafts: [...state.drafts, draft] };
  }
  const drafts = [...state.drafts];
  drafts[index] = { ...drafts[index]!, text: drafts[index]!.text + text };
  return { ...state, drafts };
}

/** The drafts of an interrupted turn, kept after the newest entry shown. */
function keptDrafts(state: TranscriptState, turnId: string): InterruptedDraft[] {
  const afterEntryId = state.entries.at(-1)?.id ?? null;
  return state.drafts
    .filter((draft) => draft.turnId === turnId && draft.text !== "")
    .map((draft) => ({ draft, afterEntryId }));
}

function pendingApprovalsOf(snapshot: SessionSnapshot): PendingApproval[] {
  return snapshot.pending_approvals;
}

/** Entries sorted by log position, then by item index within the position (`<position>-<k>`). */
function inLogOrder(entries: HistoryEntry[]): HistoryEntry[] {
  return entries.sort((a, b) => a.position - b.position || itemIndex(a.id) - itemIndex(b.id));
}

function itemIndex(id: string): number {
  const match = /^\d+-(\d+)$/.exec(id);
  return match === null ? 0 : Number(match[1]);
}

/** What the page says when a turn ends (null: nothing to say, it answered). */
function turnEndNotice(
  state: Extract<SessionEvent, { type: "turn_completed" }>["data"]["state"],
  outcome: Extract<SessionEvent, { type: "turn_completed" }>["data"]["outcome"],
): string | null {
  if (outcome === "budget_exhausted") {
    return "Budget exhausted: the turn stopped before its next model request. Raise the session's budget (skein budget set) or config.json's, then send a message to go on.";
  }
  return state === "completed" ? null : `The turn ended: ${state}.`;
}
