/**
 * The persistence functions of a session: what a worker's progress becomes in the log.
 *
 * Boundary rule: these functions build entries and append them through the log's one append
 * path (`appendEntries`, session-writer.ts). The caller owns a `LogHeadRef` (session id + head
 * hash) that every save updates in place after its append commits, and every append is a
 * compare-and-append against that head, so a second writer is detected, never interleaved.
 * `SessionWriter` does the same while also keeping the position and the replayed state.
 */
import type { Item } from "../model/items.js";
import { isAssistantMessage, isReasoning, isToolCall, isToolResult, isUserMessage } from "../model/items.js";
import type { RequestConfig } from "../model/request-config.js";
import { timeOrderedId } from "../model/time-ordered-id.js";
import { applyEntry, collectState, startStateOf } from "./collect-state.js";
import type { EntryContext, LogEntry, Outcome, SessionOrigin } from "./entries.js";
import { UnknownEntryError } from "./errors.js";
import { copiedForkEntries } from "./fork-entries.js";
import type { RestoredState, UsageRecord } from "./restored-state.js";
import { appendEntries, type LogHeadRef } from "./session-writer.js";
import type { LogHead, Store } from "./store.js";

export type { LogHeadRef } from "./session-writer.js";

/** What a new session (or a fork) starts from. */
export interface SessionStartState {
  system_prompt: string | null;
  config: RequestConfig;
  history: readonly Item[];
}

/** A session just created: its id and the hash of its session_start entry. */
export interface CreatedSession {
  sessionId: string;
  headHash: string;
}

/** Start a new session (a fresh UUIDv7 unless one is given) with a session_start entry. */
export async function createSession(
  store: Store,
  state: SessionStartState,
  options: { sessionId?: string } = {},
): Promise<CreatedSession> {
  return startSession(store, options.sessionId ?? timeOrderedId(), state, undefined);
}

/**
 * Log the items a run added to history. Runs of items become entries: a user message is one
 * user_input, a maximal run of tool results one tool_results, a maximal run of assistant
 * messages / tool calls / reasoning one assistant_items, and any other item (system messages)
 * one hook_injected_items. All of them are appended at once. Returns null when there is nothing to log.
 */
export async function saveDelta(
  store: Store,
  head: LogHeadRef,
  newItems: readonly Item[],
  context: EntryContext = {},
): Promise<LogHead | null> {
  const entries = classifyDelta(newItems, Date.now(), context);
  if (entries.length === 0) return null;
  return appendEntries(store, head, entries);
}

/** The entries `saveDelta` writes for `items`, all stamped `ts`. */
export function classifyDelta(items: readonly Item[], ts: number, context: EntryContext = {}): LogEntry[] {
  const extra = contextFields(context);
  const entries: LogEntry[] = [];
  let i = 0;
  while (i < items.length) {
    const item = items[i]!;
    if (isUserMessage(item)) {
      entries.push({ kind: "user_input", ts, item, ...extra });
      i++;
    } else if (isToolResult(item)) {
      const run = takeRun(items, i, isToolResult);
      entries.push({ kind: "tool_results", ts, items: run, ...extra });
      i += run.length;
    } else if (isAssistantOutput(item)) {
      const run = takeRun(items, i, isAssistantOutput);
      entries.push({ kind: "assistant_items", ts, items: run, ...extra });
      i += run.length;
    } else {
      entries.push({ kind: "hook_injected_items", ts, items: [item], ...extra });
      i++;
    }
  }
  return entries;
}

/** Log the end of a run's turns with the session's model request count so far (stored as `turn_count`). */
export async function saveTurnEnd(store: Store, head: LogHeadRef, requestCount: number): Promise<LogHead> {
  return appendEntries(store, head, [{ kind: "turn_end", ts: Date.now(), turn_count: requestCount }]);
}

/** Log how a run ended and whether it left the session interrupted. */
export async function saveOutcome(
  store: Store,
  head: LogHeadRef,
  outcome: Outcome,
  interrupted: boolean,
): Promise<LogHead> {
  return appendEntries(store, head, [{ kind: "run_outcome", ts: Date.now(), outcome, interrupted }]);
}

/** Log one LLM request's token usage. */
export async function saveUsage(store: Store, head: LogHeadRef, usage: UsageRecord): Promise<LogHead> {
  return appendEntries(store, head, [
    {
      kind: "llm_usage",
      ts: Date.now(),
      history_len: usage.history_len,
      input_total_tokens: usage.input_total_tokens,
      cache_read_tokens: usage.cache_read_tokens,
      cache_write_tokens: usage.cache_write_tokens,
      output_tokens: usage.output_tokens,
    },
  ]);
}

/** Log a new request config. */
export async function saveConfigChanged(
  store: Store,
  head: LogHeadRef,
  config: RequestConfig,
): Promise<LogHead> {
  return appendEntries(store, head, [{ kind: "config_changed", ts: Date.now(), config }]);
}

/** Log that the first `lockedPrefixLen` history items are locked for prompt caching. */
export async function saveCacheLocked(
  store: Store,
  head: LogHeadRef,
  lockedPrefixLen: number,
): Promise<LogHead> {
  return appendEntries(store, head, [{ kind: "locked", ts: Date.now(), locked_prefix_len: lockedPrefixLen }]);
}

/** Log that the prompt-cache lock was released. */
export async function saveCacheUnlocked(store: Store, head: LogHeadRef): Promise<LogHead> {
  return appendEntries(store, head, [{ kind: "cache_unlocked", ts: Date.now() }]);
}

/** Log a runtime note to the model (e.g. "the daemon restarted"); it replays as `item`. */
export async function saveNote(
  store: Store,
  head: LogHeadRef,
  origin: string,
  item: Item,
  context: EntryContext = {},
): Promise<LogHead> {
  return appendEntries(store, head, [
    { kind: "note", ts: Date.now(), origin, item, ...contextFields(context) },
  ]);
}

/** The state a session's log describes (read and verified by the store, then replayed). */
export async function restore(store: Store, sessionId: string): Promise<RestoredState> {
  return collectState(await store.readAll(sessionId));
}

/** A new session holding only a session_start of `state` (no provenance). */
export async function fork(store: Store, state: SessionStartState): Promise<CreatedSession> {
  return startSession(store, timeOrderedId(), state, undefined);
}

/**
 * How `forkAt` writes the fork: `snapshot`, one session_start holding the replayed state of the
 * source; `copy`, the source's entries through the fork point re-chained as the fork's own (so it
 * keeps the source's positions, entry contexts and continuations; the daemon forks this way).
 */
export type ForkMode = "snapshot" | "copy";

/**
 * A new session that starts where `sourceId` was right after the entry `entryHash`, pointing
 * back at it (`forked_from`): by default its session_start holds the replayed state of the
 * source up to and including that entry; with `mode: "copy"` it holds those entries themselves
 * (see copiedForkEntries). An entry the source does not have is an `UnknownEntryError`.
 */
export async function forkAt(
  store: Store,
  sourceId: string,
  entryHash: string,
  options: { mode?: ForkMode } = {},
): Promise<CreatedSession> {
  const entries = await store.readAll(sourceId);
  const cut = entries.findIndex((entry) => entry.hash === entryHash);
  if (cut < 0) throw new UnknownEntryError(sourceId, entryHash);
  if (options.mode === "copy") {
    const head: LogHeadRef = { sessionId: timeOrderedId(), hash: null };
    await appendEntries(store, head, copiedForkEntries(sourceId, entries, { position: cut }));
    return { sessionId: head.sessionId, headHash: head.hash! };
  }
  // From the start of what is stored: a pruned log's replay starts from its record's base.
  const state = startStateOf(entries);
  for (const placed of entries.slice(0, cut + 1)) applyEntry(state, placed.entry);
  return startSession(store, timeOrderedId(), state, { session_id: sourceId, entry_hash: entryHash });
}

/**
 * Make sure the writer still owns the head of its log. If the store's head is not `head.hash`
 * (another writer appended), fork a new session seeded from the writer's in-memory `state`,
 * pointing back at the writer's last known head, and repoint `head` at the fork. The source
 * is left untouched. Returns true when it forked.
 */
export async function ensureHeadOrFork(
  store: Store,
  head: LogHeadRef,
  state: SessionStartState,
): Promise<boolean> {
  const stored = await store.readHead(head.sessionId);
  if ((stored?.hash ?? null) === head.hash) return false;
  const origin = head.hash === null ? undefined : { session_id: head.sessionId, entry_hash: head.hash };
  const created = await startSession(store, timeOrderedId(), state, origin);
  head.sessionId = created.sessionId;
  head.hash = created.headHash;
  return true;
}

async function startSession(
  store: Store,
  sessionId: string,
  state: SessionStartState,
  forkedFrom: SessionOrigin | undefined,
): Promise<CreatedSession> {
  const entry: LogEntry = {
    kind: "session_start",
    ts: Date.now(),
    system_prompt: state.system_prompt,
    config: { ...state.config },
    history: [...state.history],
    ...(forkedFrom === undefined ? {} : { forked_from: forkedFrom }),
  };
  const head: LogHeadRef = { sessionId, hash: null };
  await appendEntries(store, head, [entry]);
  return { sessionId, headHash: head.hash! };
}

function isAssistantOutput(item: Item): boolean {
  return isAssistantMessage(item) || isToolCall(item) || isReasoning(item);
}

function takeRun(items: readonly Item[], from: number, belongs: (item: Item) => boolean): Item[] {
  let end = from;
  while (end < items.length && belongs(items[end]!)) end++;
  return items.slice(from, end);
}

/** Only the context fields that are set, so entries carry no undefined-valued keys. */
function contextFields(context: EntryContext): EntryContext {
  const fields: EntryContext = {};
  if (context.turn_id !== undefined) fields.turn_id = context.turn_id;
  if (context.input_id !== undefined) fields.input_id = context.input_id;
  return fields;
}
