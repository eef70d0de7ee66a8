/**
 * Replay: the session state a log describes, rebuilt entry by entry.
 *
 * Boundary rule: pure and trusting. It neither verifies hashes nor checks links (stores verify
 * on read); it only folds entries into state.
 */
import type { Item } from "../model/items.js";
import type { RequestConfig } from "../model/request-config.js";
import type { HashedEntry, LogEntry } from "./entries.js";

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

/** Everything a worker needs to continue a session, as replayed from its log. */
export interface RestoredState {
  system_prompt: string | null;
  config: RequestConfig;
  history: Item[];
  turn_count: number;
  locked_prefix_len: number;
  last_run_interrupted: boolean;
  /** Hash of the last entry replayed; null for an empty log. */
  head_hash: string | null;
  usage_history: UsageRecord[];
}

/** The state of an empty log: no prompt, default config, nothing said yet. */
export function emptyState(): RestoredState {
  return {
    system_prompt: null,
    config: {},
    history: [],
    turn_count: 0,
    locked_prefix_len: 0,
    last_run_interrupted: false,
    head_hash: null,
    usage_history: [],
  };
}

/** Replay `entries` (in log order) into the state they describe. */
export function collectState(entries: readonly HashedEntry[]): RestoredState {
  const state = emptyState();
  for (const hashed of entries) {
    applyEntry(state, hashed.entry);
    state.head_hash = hashed.hash;
  }
  return state;
}

/** Apply one entry's replay effect to `state` in place. */
export function applyEntry(state: RestoredState, entry: LogEntry): void {
  switch (entry.kind) {
    case "session_start":
      state.system_prompt = entry.system_prompt;
      state.config = { ...entry.config };
      state.history = [...entry.history];
      return;
    case "user_input":
    case "note":
      state.history.push(entry.item);
      return;
    case "assistant_items":
    case "tool_results":
    case "hook_injected_items":
      for (const item of entry.items) state.history.push(item);
      return;
    case "continuation":
      // The model ran again without new input: nothing to replay.
      return;
    case "turn_end":
      state.turn_count = entry.turn_count;
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
      return;
    default: {
      const unknown: never = entry;
      throw new Error(`unknown log entry kind ${(unknown as { kind: string }).kind}`);
    }
  }
}
