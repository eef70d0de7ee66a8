/**
 * Replay: the session state a log describes, rebuilt entry by entry.
 *
 * Boundary rule: pure and trusting. It neither verifies hashes nor checks links (stores verify
 * on read); it only folds entries into state.
 */
import type { Item } from "../model/items.js";
import { TODO_WRITE_TOOL, todosFromArguments } from "../model/todos.js";
import {
  applyApprovalRequested,
  applyApprovalResolved,
  dropAnsweredApprovals,
  forgetReusedCallIds,
} from "./approval-replay.js";
import { compactionSummaryItem } from "./compaction-summary.js";
import type { HashedEntry, LogEntry, PositionedEntry } from "./entries.js";
import type { ResolvedApproval, RestoredState } from "./restored-state.js";

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
