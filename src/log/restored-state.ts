/**
 * The session state a log describes, as replay (collect-state.ts) rebuilds it: what a worker
 * needs to continue the session.
 */
import type {
  ApprovalDecision,
  ApprovalResolver,
  ApprovalRule,
  MatchedRule,
} from "../model/approval-policy.js";
import type { Budget } from "../model/budget.js";
import type { Item } from "../model/items.js";
import type { PrunedBase, RequestUsage } from "./entries.js";

/** One LLM request's token usage as the log records it (`llm_usage` entries). */
export interface UsageRecord {
  /** History length when the request was sent. */
  history_len: number;
  /** Whole prompt, cached tokens included. */
  input_total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
}

/** A committed tool call that waits for an answer (an `approval_requested` entry not yet resolved). */
export interface PendingApproval {
  call_id: string;
  tool: string;
  rule: MatchedRule;
  /** When it was requested (ms since the epoch). */
  requested_at: number;
  turn_id: string | null;
}

/** A recorded answer to an approval request (an `approval_resolved` entry). */
export interface ResolvedApproval {
  call_id: string;
  decision: ApprovalDecision;
  by: ApprovalResolver;
  client_id: string | null;
  /** The token the answer came with, and the address it came from (null: not recorded). */
  answered_by: string | null;
  answered_from: string | null;
  message: string | null;
  remember: ApprovalRule | null;
  /** When it was resolved (ms since the epoch). */
  resolved_at: number;
}

/**
 * Everything a worker needs to continue a session, as replayed from its log: the settings a
 * pruned log's base keeps (`PrunedBase`), then what the kept entries give.
 */
export interface RestoredState extends PrunedBase {
  history: Item[];
  /** Hash of the last entry replayed; null for an empty log. */
  head_hash: string | null;
  /**
   * The usage of the latest model requests (at most `usageHistoryLimit`, oldest first); the log
   * keeps every record. Bounded so that neither replay nor a state checkpoint grows with the log.
   */
  usage_history: UsageRecord[];
  /** Calls waiting for an answer, in request order; a call leaves once answered or given a result. */
  pending_approvals: PendingApproval[];
  /** Every answer given, by call id (a null-prototype record). */
  approval_decisions: Record<string, ResolvedApproval>;
  /**
   * The log position each history item comes from (parallel to `history`); a compaction's
   * summary has the compaction's own position. What a later compaction cuts by.
   */
  history_positions: number[];
  /** Position of the next entry replayed (the number of entries replayed so far). */
  next_position: number;
  /** The latest compaction replayed, or null when the context was never compacted. */
  last_compaction: CompactionRecord | null;
  /** The session's own budget (the latest `budget_changed`; null: none of its own). */
  budget: Budget | null;
  /** What the latest logged model answer's request used (null: none logged with its usage). */
  last_request_usage: RequestUsage | null;
}

/** Where the latest compaction is and what it saved (its estimates). */
export interface CompactionRecord {
  position: number;
  first_kept_position: number;
  before_tokens: number;
  after_tokens: number;
}
