/**
 * A session on the wire, as TypeBox schemas and the types derived from them: the summary `GET
 * /sessions` lists, the snapshot a client rebuilds its view from (`GET /sessions/{id}`, the
 * answer of a creation, a stream reset's `snapshot`), its context and the answer of a
 * compaction request.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. The
 * daemon builds them, a client reads them.
 */

import { type Static, Type } from "typebox";
import { ApprovalModeSchema, NullableApprovalPolicySchema, PendingApprovalSchema } from "./approvals.js";
import { BudgetViewSchema } from "./budget.js";
import { HistoryPageSchema } from "./history.js";
import { PendingInputSchema } from "./inputs.js";
import { closedObject, literalUnion, NullableString, namedObject, Time } from "./parts.js";
import { SessionCreationSchema, SnapshotCreationSchema } from "./session-creation.js";
import { SessionSettingsSchema } from "./session-settings.js";
import { StreamCursorSchema } from "./stream-cursor.js";

const SessionPhaseSchema = literalUnion("idle", "running", "waiting");

/**
 * What a session is doing: nothing, running a turn, or running a turn that waits for a person
 * to answer an approval request (`pending_approvals` of the snapshot lists them).
 */
export type SessionPhase = Static<typeof SessionPhaseSchema>;

/** The `status` object of a summary, a snapshot and the session list's `status` events. */
export const SessionStatusSchema = namedObject("SessionStatus", {
  phase: SessionPhaseSchema,
  run_id: NullableString,
  interrupt_requested: Type.Boolean(),
  /** Why the session cannot go on now (`storage_unavailable`, `log_corrupt`), or null. */
  blocking_reason: Type.Union([Type.Null(), closedObject({ code: Type.String(), detail: Type.String() })]),
});
export type SessionStatus = Static<typeof SessionStatusSchema>;

/** A session's preview: the start of its first user text and how many transcript positions it has. */
const SessionPreviewSchema = closedObject({
  /** The first 256 Unicode scalar values of the first non-empty user text ("" when there is none). */
  text: Type.String(),
  /** How many distinct log positions yield a history entry other than a continuation. */
  transcript_count: Type.Integer({ minimum: 0 }),
  /** Whether the first user text is longer than `text`. */
  truncated: Type.Boolean(),
});
export type SessionPreview = Static<typeof SessionPreviewSchema>;

/** Token totals of a session. */
const SessionUsageSchema = closedObject({
  prompt_tokens: Type.Integer({ minimum: 0 }),
  completion_tokens: Type.Integer({ minimum: 0 }),
  cached_prompt_tokens: Type.Integer({ minimum: 0 }),
  total_tokens: Type.Integer({ minimum: 0 }),
});
export type SessionUsage = Static<typeof SessionUsageSchema>;

const summaryFields = {
  id: Type.String(),
  name: NullableString,
  workspace: Type.String(),
  /** The session it was forked from, or the parent whose `task` call started it. */
  parent_id: NullableString,
  /** A `task` call's child: the parent's call that started it (null for every other session). */
  parent_call_id: NullableString,
  /** A `task` call's child: the agent it runs as (null for every other session). */
  agent: NullableString,
  created_at: Time,
  activity_at: Time,
  provider_profile: NullableString,
  model: NullableString,
  status: SessionStatusSchema,
  preview: SessionPreviewSchema,
  input_order: Type.Integer({ minimum: 0 }),
  usage: SessionUsageSchema,
  creation: SessionCreationSchema,
};

/** A session as the collection lists it (`GET /sessions`). */
export const SessionSummarySchema = namedObject("SessionSummary", {
  ...summaryFields,
  /** Null when the session's actor is not loaded. */
  cursor: Type.Union([StreamCursorSchema, Type.Null()]),
});
export type SessionSummary = Static<typeof SessionSummarySchema>;

/**
 * A session's context as the next request will send it: its size in tokens (from the
 * provider's usage of the last response plus an estimate of what came after it, or an estimate
 * alone before the first response and after a compaction or a daemon restart), the model's
 * window, and the session's cost at the profile's prices.
 */
const SessionContextSchema = namedObject("SessionContext", {
  used_tokens: Type.Integer({ minimum: 0 }),
  /** True when no provider usage backs `used_tokens` (it is the daemon's estimate). */
  estimated: Type.Boolean(),
  context_window: Type.Integer({ minimum: 0 }),
  max_output_tokens: Type.Integer({ minimum: 0 }),
  /** used_tokens / context_window (may pass 1 before a compaction or an overflow). */
  fill: Type.Number({ minimum: 0 }),
  /** The fill from which the context is compacted before a request. */
  compact_threshold: Type.Number(),
  /** A compaction is running now. */
  compacting: Type.Boolean(),
  last_compaction: Type.Union([
    Type.Null(),
    closedObject({
      position: Type.Integer({ minimum: 0 }),
      before_tokens: Type.Integer({ minimum: 0 }),
      after_tokens: Type.Integer({ minimum: 0 }),
    }),
  ]),
  /** Why the last compaction attempt failed, or null (cleared by the next success). */
  last_compaction_error: NullableString,
  /** The session's token totals at the current profile's prices (USD); null without prices. */
  cost_usd: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
  /** What the user should know: an unknown model's window or prices. */
  warnings: Type.Array(Type.String()),
});
export type SessionContext = Static<typeof SessionContextSchema>;

/** One item of the agent's plan (`todo_write`). */
const TodoSchema = namedObject("Todo", {
  content: Type.String(),
  status: literalUnion("pending", "in_progress", "completed"),
});
export type TodoItem = Static<typeof TodoSchema>;

/** `GET /sessions/{id}`, the answer of a creation, and a stream reset's snapshot. */
export const SessionSnapshotSchema = namedObject("SessionSnapshot", {
  ...summaryFields,
  /** How the session came to be, with the creation request it was made by. */
  creation: SnapshotCreationSchema,
  /** A snapshot is only ever taken of a loaded session. */
  cursor: StreamCursorSchema,
  pending_inputs: Type.Array(PendingInputSchema),
  /** Tool calls that wait for an answer, oldest first. */
  pending_approvals: Type.Array(PendingApprovalSchema),
  /** The session's own approval policy (null: config.json's applies). */
  approval_policy: NullableApprovalPolicySchema,
  /** The session's approval mode (`ask` until one is set). */
  approval_mode: ApprovalModeSchema,
  history: HistoryPageSchema,
  /** The provider, model and model parameters the session runs with. */
  settings: SessionSettingsSchema,
  /** How full the model's context is and what the session cost; null when no provider is configured. */
  context: Type.Union([SessionContextSchema, Type.Null()]),
  /** The agent's plan: the items of its latest `todo_write` call, in order (empty before any). */
  todos: Type.Array(TodoSchema),
  /** The tightest budget that applies to the session's model requests (null: none applies). */
  budget: Type.Union([BudgetViewSchema, Type.Null()]),
  /** `usage` plus the usage of every child its `task` calls started, and theirs, recursively. */
  usage_total: SessionUsageSchema,
  /**
   * `context.cost_usd` plus each such child's cost at the prices of its own profile and model
   * (USD); null when the session's or a child's (one that used tokens) prices are unknown.
   */
  cost_total_usd: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
});
export type SessionSnapshot = Static<typeof SessionSnapshotSchema>;

/** The body of `POST /sessions/{id}/repair`: the log entries whose items the model is no longer sent. */
export const RepairBodySchema = closedObject({
  from_position: Type.Integer({ minimum: 1 }),
  to_position: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type RepairBody = Static<typeof RepairBodySchema>;

/** The answer of `POST /sessions/{id}/repair` (200): what the model is no longer sent. */
export const RepairAnswerSchema = closedObject({
  session_id: Type.String(),
  from_position: Type.Integer({ minimum: 1 }),
  to_position: Type.Integer({ minimum: 1 }),
  /** How many items the model is no longer sent. */
  excluded_items: Type.Integer({ minimum: 1 }),
});
export type RepairAnswer = Static<typeof RepairAnswerSchema>;

/** The answer of `POST /sessions/{id}/compact` (202): the compaction runs; events tell how it ends. */
export const CompactAnswerSchema = closedObject({
  session_id: Type.String(),
  state: Type.Literal("started"),
  /** The plan's estimates: the context now, and what it keeps of it. */
  before_tokens: Type.Integer({ minimum: 0 }),
  kept_tokens: Type.Integer({ minimum: 0 }),
  first_kept_position: Type.Integer({ minimum: 0 }),
});
export type CompactAnswer = Static<typeof CompactAnswerSchema>;
