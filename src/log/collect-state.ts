/**
 * Replay: the session state a log describes, rebuilt entry by entry.
 *
 * Boundary rule: pure and trusting. It neither verifies hashes nor checks links (stores verify
 * on read); it only folds entries into state.
 */
import type {
  ApprovalDecision,
  ApprovalResolver,
  ApprovalRule,
  MatchedRule,
} from "../model/approval-policy.js";
import type { Budget } from "../model/budget.js";
import type { Item } from "../model/items.js";
import { TODO_WRITE_TOOL, todosFromArguments } from "../model/todos.js";
import { compactionSummaryItem } from "./compaction-summary.js";
import type { HashedEntry, LogEntry, PositionedEntry, PrunedBase, RequestUsage } from "./entries.js";

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

/** How many usage records replay keeps (the latest). */
export const usageHistoryLimit = 256;

/** The state of an empty log: no prompt, default config, nothing said yet. */
export function emptyState(): RestoredState {
  return {
    system_prompt: null,
    config: {},
    history: [],
    request_count: 0,
    locked_prefix_len: 0,
    last_run_interrupted: false,
    head_hash: null,
    usage_history: [],
    approval_policy: null,
    approval_mode: "ask",
    remembered_rules: [],
    pending_approvals: [],
    approval_decisions: Object.create(null) as Record<string, ResolvedApproval>,
    history_positions: [],
    next_position: 0,
    last_compaction: null,
    todos: [],
    budget: null,
    last_request_usage: null,
  };
}

/**
 * Replay `entries` (in log order) into the state they describe. A log whose first stored entry
 * is not position 0 (a pruned log, see pruned-log.ts) starts from the base its `pruned` record
 * carries.
 */
export function collectState(entries: readonly HashedEntry[]): RestoredState {
  const state = startStateOf(entries);
  for (const hashed of entries) {
    applyEntry(state, hashed.entry);
    state.head_hash = hashed.hash;
  }
  return state;
}

/**
 * Where replay starts: the empty state for a log stored from position 0; for a pruned log (its
 * first entry at position P > 0), the `base` of its latest `pruned` record, at position P. The
 * store verified that this record names exactly this cut; without one there is nothing to start
 * from, and the log is corrupt.
 */
export function startStateOf(entries: readonly HashedEntry[]): RestoredState {
  const state = emptyState();
  const first = entries[0] as Partial<PositionedEntry> | undefined;
  if (first?.position === undefined || first.position === 0) return state;
  for (let i = entries.length - 1; i >= 0; i--) {
    const { entry } = entries[i]!;
    if (entry.kind !== "pruned") continue;
    if (entry.up_to !== first.position) break;
    const { base } = entry;
    state.system_prompt = base.system_prompt;
    state.config = { ...base.config };
    state.request_count = base.request_count;
    state.locked_prefix_len = base.locked_prefix_len;
    state.last_run_interrupted = base.last_run_interrupted;
    state.approval_policy = base.approval_policy === null ? null : structuredClone(base.approval_policy);
    state.approval_mode = base.approval_mode;
    state.remembered_rules = base.remembered_rules.map((rule) => ({ ...rule }));
    state.todos = base.todos.map((todo) => ({ ...todo }));
    state.budget = base.budget == null ? null : { ...base.budget };
    state.next_position = first.position;
    return state;
  }
  throw new Error(`a log starting at position ${first.position} needs a pruned record naming that cut`);
}

/**
 * Apply one entry's replay effect to `state` in place; the entry is the one at
 * `state.next_position` (entries are applied in log order from position 0).
 */
export function applyEntry(state: RestoredState, entry: LogEntry): void {
  const position = state.next_position++;
  switch (entry.kind) {
    case "session_start":
      state.system_prompt = entry.system_prompt;
      state.config = { ...entry.config };
      state.history = [...entry.history];
      state.pending_approvals = [];
      state.history_positions = entry.history.map(() => position);
      return;
    case "user_input":
    case "note":
      state.history.push(entry.item);
      state.history_positions.push(position);
      return;
    case "tool_results":
      pushItems(state, entry.items, position);
      dropAnsweredApprovals(state, entry.items);
      return;
    case "assistant_items":
      applyAnswer(state, entry, position);
      return;
    case "budget_changed":
      state.budget = entry.budget === null ? null : { ...entry.budget };
      return;
    case "hook_injected_items":
      pushItems(state, entry.items, position);
      return;
    case "compaction":
      applyCompaction(state, entry, position);
      return;
    case "context_excluded":
      applyExclusion(state, entry.from_position, entry.to_position);
      return;
    case "continuation":
    case "pruned":
      // The model ran again without new input; a pruned record's base seeded the replay (pruned-log.ts).
      return;
    case "turn_end":
      state.request_count = entry.turn_count;
      return;
    case "run_outcome":
      state.last_run_interrupted = entry.interrupted;
      return;
    case "config_changed":
      state.config = { ...entry.config };
      return;
    case "locked":
      state.locked_prefix_len = entry.locked_prefix_len;
      return;
    case "cache_unlocked":
      state.locked_prefix_len = 0;
      return;
    case "llm_usage":
      state.usage_history.push({
        history_len: entry.history_len,
        input_total_tokens: entry.input_total_tokens,
        cache_read_tokens: entry.cache_read_tokens,
        cache_write_tokens: entry.cache_write_tokens,
        output_tokens: entry.output_tokens,
      });
      if (state.usage_history.length > usageHistoryLimit) state.usage_history.shift();
      return;
    case "approval_policy_changed":
      state.approval_policy = entry.policy === null ? null : structuredClone(entry.policy);
      if (entry.mode !== undefined) state.approval_mode = entry.mode;
      return;
    case "approval_requested":
      applyApprovalRequested(state, entry);
      return;
    case "approval_resolved":
      applyApprovalResolved(state, entry);
      return;
    default: {
      const unknown: never = entry;
      throw new Error(`unknown log entry kind ${(unknown as { kind: string }).kind}`);
    }
  }
}

/** A model answer: its items join the history (and the plan), its usage is the latest request's. */
function applyAnswer(
  state: RestoredState,
  entry: Extract<LogEntry, { kind: "assistant_items" }>,
  position: number,
): void {
  pushItems(state, entry.items, position);
  forgetReusedCallIds(state, entry.items);
  takeLatestPlan(state, entry.items);
  if (entry.usage !== undefined) state.last_request_usage = { ...entry.usage };
}

/**
 * A call waits for approval, unless it was answered or is waiting already (but a `retry` answer
 * gives way to an `unknown_outcome` request: the retried call was cut short again).
 */
function applyApprovalRequested(
  state: RestoredState,
  entry: Extract<LogEntry, { kind: "approval_requested" }>,
): void {
  if (Object.hasOwn(state.approval_decisions, entry.call_id)) {
    const retried = state.approval_decisions[entry.call_id]!.decision === "retry";
    if (!retried || entry.rule.source !== "unknown_outcome") return;
    delete state.approval_decisions[entry.call_id];
  }
  if (state.pending_approvals.some((pending) => pending.call_id === entry.call_id)) return;
  state.pending_approvals.push({
    call_id: entry.call_id,
    tool: entry.tool,
    rule: { ...entry.rule },
    requested_at: entry.ts,
    turn_id: entry.turn_id ?? null,
  });
}

/** A call's approval is decided: no longer pending, its decision (and any rule) remembered. */
function applyApprovalResolved(
  state: RestoredState,
  entry: Extract<LogEntry, { kind: "approval_resolved" }>,
): void {
  state.pending_approvals = state.pending_approvals.filter((pending) => pending.call_id !== entry.call_id);
  state.approval_decisions[entry.call_id] = {
    call_id: entry.call_id,
    decision: entry.decision,
    by: entry.by,
    client_id: entry.client_id ?? null,
    answered_by: entry.answered_by ?? null,
    answered_from: entry.answered_from ?? null,
    message: entry.message ?? null,
    remember: entry.remember === undefined ? null : { ...entry.remember },
    resolved_at: entry.ts,
  };
  if (entry.remember !== undefined) state.remembered_rules.push({ ...entry.remember });
}

/** A `todo_write` call sets the plan (compaction drops the call from the context, not the plan). */
function takeLatestPlan(state: RestoredState, items: readonly Item[]): void {
  for (const item of items) {
    if (item.type !== "tool_call" || item.name !== TODO_WRITE_TOOL) continue;
    const todos = todosFromArguments(item.arguments);
    if (todos !== null) state.todos = todos;
  }
}

/** Append items to the history, each remembered as coming from the entry at `position`. */
function pushItems(state: RestoredState, items: readonly Item[], position: number): void {
  for (const item of items) {
    state.history.push(item);
    state.history_positions.push(position);
  }
}

/**
 * Some servers reuse call ids (`call_0` in every response): a new call with an id seen before
 * is a new call, and an answer given to the old one must never apply to it.
 */
function forgetReusedCallIds(state: RestoredState, items: readonly Item[]): void {
  for (const item of items) {
    if (item.type !== "tool_call") continue;
    if (Object.hasOwn(state.approval_decisions, item.call_id)) delete state.approval_decisions[item.call_id];
    if (state.pending_approvals.some((pending) => pending.call_id === item.call_id)) {
      state.pending_approvals = state.pending_approvals.filter((pending) => pending.call_id !== item.call_id);
    }
  }
}

/** A call that got its result waits for nothing any more (e.g. closed when a turn stopped short). */
function dropAnsweredApprovals(state: RestoredState, items: readonly Item[]): void {
  if (state.pending_approvals.length === 0) return;
  const answered = new Set<string>();
  for (const item of items) if (item.type === "tool_result") answered.add(item.call_id);
  state.pending_approvals = state.pending_approvals.filter((pending) => !answered.has(pending.call_id));
}

/**
 * The items of the entries in [from, to] leave the context; a result whose call left goes too
 * (and the other way round), so what remains still pairs up.
 */
function applyExclusion(state: RestoredState, from: number, to: number): void {
  const excluded = (i: number) => {
    const position = state.history_positions[i]!;
    return position >= from && position <= to;
  };
  const drop = state.history.map((_, i) => excluded(i));
  // Each result answers the latest call with its id before it (servers reuse ids like call_0).
  const latestCall = new Map<string, number>();
  state.history.forEach((item, i) => {
    if (item.type === "tool_call") latestCall.set(item.call_id, i);
    if (item.type !== "tool_result") return;
    const call = latestCall.get(item.call_id);
    if (call === undefined) return;
    if (drop[call] === true || drop[i] === true) {
      drop[call] = true;
      drop[i] = true;
    }
  });
  state.history = state.history.filter((_, i) => drop[i] !== true);
  state.history_positions = state.history_positions.filter((_, i) => drop[i] !== true);
  // A cache lock covered a prefix that changed.
  state.locked_prefix_len = 0;
}

/** The context becomes the summary plus the items of the entries from the first kept position on. */
function applyCompaction(
  state: RestoredState,
  entry: Extract<LogEntry, { kind: "compaction" }>,
  position: number,
): void {
  // After a compaction the context starts with its summary, which carries the compaction's own
  // (later) position: it is never kept, whatever the cut.
  const from = state.last_compaction === null ? 0 : 1;
  let keepFrom = state.history.length;
  for (let i = from; i < state.history.length; i++) {
    if (state.history_positions[i]! >= entry.first_kept_position) {
      keepFrom = i;
      break;
    }
  }
  state.history = [compactionSummaryItem(entry.summary), ...state.history.slice(keepFrom)];
  state.history_positions = [position, ...state.history_positions.slice(keepFrom)];
  // A cache lock covered a prefix that no longer exists.
  state.locked_prefix_len = 0;
  state.last_compaction = {
    position,
    first_kept_position: entry.first_kept_position,
    before_tokens: entry.before_tokens,
    after_tokens: entry.after_tokens,
  };
}
