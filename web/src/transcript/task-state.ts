/**
 * The `task` calls of a session as its page tracks them: the stream's `task_started` (which
 * child session the call's agent works in) and `task_completed` (how it ended, and the child's
 * tokens), folded into a map by call id; and a task block's facts, from that map, the children
 * the session listing gives (`GET /sessions?parent_id=`, for tasks that started before the page
 * opened) and the call's own entries. A child's approval requests, relayed on the parent's
 * stream with its `session_id`, are kept by child until their relayed answer comes (or the task
 * or the parent's turn ends), so the task block can offer to answer them.
 *
 * Boundary rule: pure and immutable, like transcript-state.ts.
 */
import type { PendingApproval } from "../../../src/api/approvals.js";
import type { HistoryEntry } from "../../../src/api/history.js";
import type { SessionEvent } from "../../../src/api/session-events.js";
import type { SessionSummary } from "../../../src/api/session-snapshot.js";

/** A `task` call's progress as the stream told it. */
export interface TaskProgress {
  childId: string;
  agent: string;
  /** `running` until `task_completed` says how the child's work ended. */
  state: "running" | "completed" | "interrupted" | "failed" | "cancelled";
  /** The child's tokens when it ended (null while it runs). */
  tokens: number | null;
  /** How many of the child's approval requests were relayed here (each is a reason to look at the child again). */
  asked: number;
}

/** The stream events about tasks. */
export type TaskEvent = Extract<SessionEvent, { type: "task_started" | "task_completed" }>;

/** The progress map after one task event. */
export function applyTaskEvent(
  tasks: ReadonlyMap<string, TaskProgress>,
  event: TaskEvent,
): ReadonlyMap<string, TaskProgress> {
  const next = new Map(tasks);
  if (event.type === "task_started") {
    const { call_id, child_session_id, agent } = event.data;
    next.set(call_id, { childId: child_session_id, agent, state: "running", tokens: null, asked: 0 });
  } else {
    const { call_id, child_session_id, state, usage } = event.data;
    const known = tasks.get(call_id);
    next.set(call_id, {
      childId: child_session_id,
      agent: known?.agent ?? "agent",
      state,
      tokens: usage.total_tokens,
      asked: known?.asked ?? 0,
    });
  }
  return next;
}

/**
 * A child's approval request, relayed on the parent's stream: answered at the child, it changes
 * nothing here but says the child now waits (the page lists its children again to show it).
 */
export function noteChildAsked(
  tasks: ReadonlyMap<string, TaskProgress>,
  childId: string,
): ReadonlyMap<string, TaskProgress> {
  const next = new Map(tasks);
  for (const [callId, task] of tasks)
    if (task.childId === childId) next.set(callId, { ...task, asked: task.asked + 1 });
  return next;
}

/** The calls `task` children wait on, relayed on the parent's stream, by child session id. */
export type ChildApprovals = ReadonlyMap<string, readonly PendingApproval[]>;

/** A relayed approval event of a child (`session_id` set). */
type ChildApprovalEvent = Extract<SessionEvent, { type: "approval_requested" | "approval_resolved" }>;

/** The children's waiting calls after one relayed request or answer. */
export function applyChildApprovalEvent(
  waiting: ChildApprovals,
  childId: string,
  event: ChildApprovalEvent,
): ChildApprovals {
  const calls = waiting.get(childId) ?? [];
  const others = calls.filter((call) => call.call_id !== event.data.call_id);
  const next = new Map(waiting);
  if (event.type === "approval_requested") {
    const { session_id: _child, ...request } = event.data;
    next.set(childId, [...others, request]);
  } else if (others.length === 0) next.delete(childId);
  else next.set(childId, others);
  return next;
}

/** Forget the waiting calls of `childId` (its task ended), or of every child (the turn ended). */
export function forgetChildApprovals(waiting: ChildApprovals, childId: string | null): ChildApprovals {
  if (waiting.size === 0) return waiting;
  if (childId === null) return new Map();
  const next = new Map(waiting);
  next.delete(childId);
  return next;
}

/** What a task block shows. */
export interface TaskFacts {
  agent: string;
  prompt: string;
  /** The child session (null until the task started, or when nothing says which). */
  childId: string | null;
  /** `running`, `waiting` (for an approval in the child), or how it ended. */
  state: string;
  tokens: number | null;
  /** The child's calls that wait, as relayed here (answered at the child's route). */
  approvals: readonly PendingApproval[];
}

/** A `task` call's facts: the stream's word first, then the child's listing, then the call's own entries. */
export function taskFacts(
  call: HistoryEntry,
  result: HistoryEntry | undefined,
  progress: TaskProgress | undefined,
  child: SessionSummary | undefined,
  waiting: ChildApprovals,
): TaskFacts {
  const args = argumentsOf(call);
  const agent = progress?.agent ?? child?.agent ?? (typeof args.agent === "string" ? args.agent : "agent");
  const prompt = typeof args.prompt === "string" ? args.prompt : "";
  const childId = progress?.childId ?? child?.id ?? null;
  const ended = result === undefined ? null : result.tool?.is_error === true ? "failed" : "completed";
  const approvals = (childId === null ? undefined : waiting.get(childId)) ?? [];
  const asks = approvals.length > 0 || child?.status.phase === "waiting";
  const running = asks ? "waiting for approval" : "running";
  const state = progress?.state === "running" || progress === undefined ? (ended ?? running) : progress.state;
  const tokens = progress?.tokens ?? child?.usage.total_tokens ?? null;
  return { agent, prompt, childId, state, tokens, approvals };
}

function argumentsOf(entry: HistoryEntry): Record<string, unknown> {
  for (const part of entry.content) {
    if (part.kind !== "json" || part.field !== "arguments") continue;
    const value = typeof part.value === "string" ? safeParse(part.value) : part.value;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  }
  return {};
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
