/**
 * A session as the HTTP API shows it: the summary `GET /sessions` lists, and the snapshot a
 * client rebuilds its view from (`GET /sessions/{id}`, the answer of a creation, a stream
 * reset's `snapshot`).
 *
 * Boundary rule: plain types in their wire shape (snake_case); the daemon builds them
 * (src/daemon/session/session-snapshot.ts), a client reads them.
 */
import type { ApprovalPolicy, PendingApproval } from "./approvals.js";
import type { HistoryPage } from "./history.js";
import type { PendingInput } from "./inputs.js";
import type { SessionCreation, SnapshotCreation } from "./session-creation.js";
import type { SessionSettings } from "./session-settings.js";
import type { StreamCursor } from "./stream-cursor.js";

export type { SessionCreation, SnapshotCreation } from "./session-creation.js";

/**
 * What a session is doing: nothing, running a turn, or running a turn that waits for a person
 * to answer an approval request (`pending_approvals` of the snapshot lists them).
 */
export type SessionPhase = "idle" | "running" | "waiting";

/** The `status` object of a summary, a snapshot and the session list's `status` events. */
export interface SessionStatus {
  phase: SessionPhase;
  run_id: string | null;
  interrupt_requested: boolean;
  /** Why the session cannot go on now (`storage_unavailable`, `log_corrupt`), or null. */
  blocking_reason: null | { code: string; detail: string };
}

/** A session's preview: the start of its first user text and how many transcript positions it has. */
export interface SessionPreview {
  /** The first 256 Unicode scalar values of the first non-empty user text ("" when there is none). */
  text: string;
  /** How many distinct log positions yield a history entry other than a continuation. */
  transcript_count: number;
  /** Whether the first user text is longer than `text`. */
  truncated: boolean;
}

/** Token totals of a session. */
export interface SessionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_prompt_tokens: number;
  total_tokens: number;
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
  cursor: StreamCursor | null;
  preview: SessionPreview;
  input_order: number;
  usage: SessionUsage;
  creation: SessionCreation;
}

/** `GET /sessions/{id}`, the answer of a creation, and a stream reset's snapshot. */
export interface SessionSnapshot extends SessionSummary {
  /** A snapshot is only ever taken of a loaded session. */
  cursor: StreamCursor;
  /** How the session came to be, with the creation request it was made by. */
  creation: SnapshotCreation;
  pending_inputs: PendingInput[];
  /** Tool calls that wait for an answer, oldest first. */
  pending_approvals: PendingApproval[];
  /** The session's own approval policy (null: config.json's applies). */
  approval_policy: ApprovalPolicy | null;
  history: HistoryPage;
  /** The provider, model and model parameters the session runs with. */
  settings: SessionSettings;
  /** How full the model's context is and what the session cost; null when no provider is configured. */
  context: SessionContext | null;
}

/**
 * A session's context as the next request will send it: its size in tokens (from the
 * provider's usage of the last response plus an estimate of what came after it, or an estimate
 * alone before the first response and after a compaction or a daemon restart), the model's
 * window, and the session's cost at the profile's prices.
 */
export interface SessionContext {
  used_tokens: number;
  /** True when no provider usage backs `used_tokens` (it is the daemon's estimate). */
  estimated: boolean;
  context_window: number;
  max_output_tokens: number;
  /** used_tokens / context_window (may pass 1 before a compaction or an overflow). */
  fill: number;
  /** The fill from which the context is compacted before a request. */
  compact_threshold: number;
  /** A compaction is running now. */
  compacting: boolean;
  last_compaction: null | { position: number; before_tokens: number; after_tokens: number };
  /** Why the last compaction attempt failed, or null (cleared by the next success). */
  last_compaction_error: string | null;
  /** The session's token totals at the current profile's prices (USD); null without prices. */
  cost_usd: number | null;
  /** What the user should know: an unknown model's window or prices. */
  warnings: string[];
}

/** The answer of `POST /sessions/{id}/repair` (200): what the model is no longer sent. */
export interface RepairAnswer {
  session_id: string;
  from_position: number;
  to_position: number;
  /** How many items the model is no longer sent. */
  excluded_items: number;
}

/** The answer of `POST /sessions/{id}/compact` (202): the compaction runs; events tell how it ends. */
export interface CompactAnswer {
  session_id: string;
  state: "started";
  /** The plan's estimates: the context now, and what it keeps of it. */
  before_tokens: number;
  kept_tokens: number;
  first_kept_position: number;
}
