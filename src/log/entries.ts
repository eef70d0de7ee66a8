/**
 * Session log entries: the durable record of a session, one per committed step.
 *
 * Boundary rule: plain data. These shapes are hashed (canonical JSON, see canonical-json.ts)
 * and stored verbatim, so a field may be added only as optional and never renamed.
 */
import type {
  ApprovalDecision,
  ApprovalMode,
  ApprovalPolicy,
  ApprovalResolver,
  ApprovalRule,
  MatchedRule,
} from "../model/approval-policy.js";
import type { Budget } from "../model/budget.js";
import type { Item } from "../model/items.js";
import type { RequestConfig } from "../model/request-config.js";
import type { Todo } from "../model/todos.js";

/**
 * Where a forked session branched from: the source session and the hash of the last entry it
 * kept. `position` (that entry's position in the source) is present when the fork copied the
 * source's entries: then the fork's positions 1..position are those entries, re-chained.
 */
export interface SessionOrigin {
  session_id: string;
  entry_hash: string;
  position?: number;
}

/**
 * The project instruction file (AGENTS.md, CLAUDE.md) whose text was appended to the system
 * prompt at creation: its path, its size in bytes, and whether only its start was used.
 */
export interface SessionInstructions {
  path: string;
  bytes: number;
  truncated: boolean;
}

/** How a run ended (audit only; replay uses `interrupted`). */
export type Outcome =
  | { type: "finished" }
  | { type: "paused" }
  | { type: "limit_reached" }
  | { type: "yielded" }
  /** A budget that applies to the session was used up: the turn stopped before its next model request. */
  | { type: "budget_exhausted"; message: string }
  | { type: "error"; message: string };

/** Why items left the model's context: the model refused them, or a client repaired the session. */
export type ExclusionReason = "refusal" | "repair";

/** Why a compaction ran: the fill threshold was reached, the provider refused an overlong request, or a client asked. */
export type CompactionTrigger = "auto" | "overflow" | "manual";

/** Optional bookkeeping the daemon attaches to entries it writes (which turn, which input). */
export interface EntryContext {
  turn_id?: string;
  input_id?: string;
  /** The turn's trace (OpenTelemetry ids, lowercase hex) when the daemon exports traces. */
  trace_id?: string;
  span_id?: string;
}

export type LogEntry =
  | {
      kind: "session_start";
      ts: number;
      system_prompt: string | null;
      config: RequestConfig;
      history: Item[];
      forked_from?: SessionOrigin;
      /** Present when project instructions were added to `system_prompt` (which holds their text). */
      instructions?: SessionInstructions;
    }
  | ({ kind: "user_input"; ts: number; item: Item } & EntryContext)
  /**
   * A model answer; `usage`: what its request used (absent in logs written before it was
   * recorded). `interrupted`: the answer was cut short by an interrupt while it streamed, and
   * `items` hold what had streamed (text and thinking by value, no tool calls); it replays like
   * any answer (the model is sent it on the next request). Absent on whole answers.
   */
  | ({
      kind: "assistant_items";
      ts: number;
      items: Item[];
      usage?: RequestUsage;
      interrupted?: true;
    } & EntryContext)
  | ({ kind: "tool_results"; ts: number; items: Item[] } & EntryContext)
  /** Items an interceptor added that are neither user input nor model output (e.g. system messages). */
  | ({ kind: "hook_injected_items"; ts: number; items: Item[] } & EntryContext)
  /** A message from the runtime to the model (e.g. "the daemon restarted"); replays as `item`. */
  | ({ kind: "note"; ts: number; origin: string; item: Item } & EntryContext)
  /** A `continue` input ran the model again without a user message; changes no history. */
  | ({ kind: "continuation"; ts: number } & EntryContext)
  /**
   * A turn ended. `turn_count` (a stored name, kept for old logs and the hash chain) counts
   * model requests: how many the session has made so far, all turns together, not turns.
   * Replay reads it as `RestoredState.request_count`.
   */
  | { kind: "turn_end"; ts: number; turn_count: number }
  | { kind: "run_outcome"; ts: number; outcome: Outcome; interrupted: boolean }
  /**
   * New model parameters from the next request on; `provider_profile` and `model` (absent in
   * logs written before they were recorded) name the provider the session switched to, if any.
   */
  | {
      kind: "config_changed";
      ts: number;
      config: RequestConfig;
      provider_profile?: string | null;
      model?: string | null;
    }
  | { kind: "locked"; ts: number; locked_prefix_len: number }
  | { kind: "cache_unlocked"; ts: number }
  /**
   * The session's own approval policy was set (at creation) or changed; null: none of its own.
   * `mode`: the session's approval mode from now on (absent: unchanged, `ask` until first set).
   */
  | { kind: "approval_policy_changed"; ts: number; policy: ApprovalPolicy | null; mode?: ApprovalMode }
  /**
   * A committed tool call waits for a person's answer before its tool may run; `rule` is what
   * asked. Logged with the call (same commit) or, for a call found waiting later, on its own.
   */
  | ({
      kind: "approval_requested";
      ts: number;
      call_id: string;
      tool: string;
      rule: MatchedRule;
    } & EntryContext)
  /**
   * The answer to an approval request, logged before the tool runs. `remember`: the rule an
   * "always" answer added to the session; `message`: what the model is told (a deny's reason,
   * an `ask_user` answer); `client_id`: the answering client's name, when it gave one;
   * `answered_by`: the name of the token the answer came with (`bootstrap` for the daemon's
   * own) and `answered_from` the address it came from, for answers given through the daemon.
   */
  | ({
      kind: "approval_resolved";
      ts: number;
      call_id: string;
      decision: ApprovalDecision;
      by: ApprovalResolver;
      client_id?: string;
      answered_by?: string;
      answered_from?: string;
      message?: string;
      remember?: ApprovalRule;
    } & EntryContext)
  /**
   * The model's context was compacted: from here on replay gives the model `summary` (as one
   * user message) followed by the items of the entries from `first_kept_position` on, instead
   * of everything before. The log itself keeps every entry; only the replayed context changes.
   * `first_kept_position` may be this entry's own position (nothing kept before it). Token
   * counts are the daemon's estimates of the context before and after. `trigger` says why it
   * ran (`auto`, `overflow`, `manual`); `model` names the model that wrote the summary.
   * `usage`: what its summary requests used together (budgets count it like an answer's;
   * absent in logs written before it was recorded, or when the provider reported none).
   */
  | ({
      kind: "compaction";
      ts: number;
      summary: string;
      first_kept_position: number;
      before_tokens: number;
      after_tokens: number;
      trigger?: CompactionTrigger;
      model?: string;
      usage?: RequestUsage;
    } & EntryContext)
  /**
   * The items of the entries from `from_position` to `to_position` (both included) leave the
   * model's context from here on: replay no longer gives them to the model (a tool call and
   * its result go together), while the log and history pages keep them. `reason`: `refusal`
   * (the model refused that turn, and a refused turn must not be sent again) or `repair` (a
   * client asked, `POST /sessions/{id}/repair`); `detail` says more (the refusal's explanation).
   */
  | {
      kind: "context_excluded";
      ts: number;
      from_position: number;
      to_position: number;
      reason: ExclusionReason;
      detail?: string;
    }
  /**
   * Retention removed the entries before `up_to` (positions 0..up_to-1) from the store; this
   * record, appended after them and so covered by the chain and the signed head, is what lets a
   * log whose first stored entry is `up_to` verify: `cut_hash` is the hash of entry up_to-1,
   * which the first kept entry's prev_hash must equal. `base` is the replayed state at the cut
   * that the kept entries do not rebuild (replay starts from it); `entries` and `bytes` count what
   * was dropped (canonical JSON bytes), `policy` names the rule that dropped it.
   */
  | {
      kind: "pruned";
      ts: number;
      up_to: number;
      cut_hash: string;
      entries: number;
      bytes: number;
      policy: PrunePolicy;
      base: PrunedBase;
    }
  /**
   * The session's own budget was set (`PUT /sessions/{id}/budget`) or removed (null, `DELETE`);
   * from here on it applies before every model request (null: config.json's default, if any).
   */
  | { kind: "budget_changed"; ts: number; budget: Budget | null }
  | {
      kind: "llm_usage";
      ts: number;
      history_len: number;
      input_total_tokens: number;
      cache_read_tokens: number;
      cache_write_tokens: number;
      output_tokens: number;
    };

export type LogEntryKind = LogEntry["kind"];

/**
 * What one model request used, logged with its answer: tokens as the provider reported them
 * (`input_tokens` is the whole prompt, cached tokens included), the profile that served it, and
 * its cost in USD at that profile's prices when they are known (absent otherwise), and the
 * schedule the turn ran for. Budgets count
 * these (daemon/budget/).
 */
export interface RequestUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  profile: string;
  cost_usd?: number;
  /** The schedule whose firing started the turn that made the request (absent: none). */
  schedule?: string;
}

/** The retention rule a `pruned` entry was written under: keep the last `keep_entries` of logs above `above_bytes`. */
export interface PrunePolicy {
  keep_entries: number;
  above_bytes: number;
}

/**
 * What replay of the dropped entries set that the kept ones do not set again: a pruned log's
 * replay starts from this instead of the empty state (the history comes from the kept entries,
 * which begin at or before the latest compaction's first kept position).
 */
export interface PrunedBase {
  system_prompt: string | null;
  config: RequestConfig;
  /** How many model requests the session has made (the latest `turn_end`'s `turn_count`). */
  request_count: number;
  locked_prefix_len: number;
  last_run_interrupted: boolean;
  /** The session's own approval policy (null: the configured one applies). */
  approval_policy: ApprovalPolicy | null;
  /** The session's approval mode (`ask` until a change sets another). */
  approval_mode: ApprovalMode;
  /** Rules remembered from "always" answers, oldest first. */
  remembered_rules: ApprovalRule[];
  /** The agent's plan: the latest well-formed `todo_write` call's (empty before any). */
  todos: Todo[];
  /** The session's own budget at the cut (absent or null: none; absent in records written before budgets). */
  budget?: Budget | null;
}

/** A stored entry: the entry plus its place in the hash chain (lowercase hex SHA-256). */
export interface HashedEntry {
  hash: string;
  prev_hash: string | null;
  entry: LogEntry;
}

/** A hashed entry with its 0-based position in its session's log. */
export interface PositionedEntry extends HashedEntry {
  position: number;
}
