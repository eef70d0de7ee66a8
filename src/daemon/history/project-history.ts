/**
 * Projection of session log entries to HTTP history entries.
 *
 * Boundary rule: pure functions of the log. Every item of a log entry becomes exactly one
 * history entry, in order, so a history entry id (`"<position>"` when its log entry yields one,
 * `"<position>-<k>"` for the k-th of several) names one item of one log entry for good; a fork
 * at a checkpoint id can be resolved back to that item. Bookkeeping entries (turn_end,
 * run_outcome, config_changed, locked, cache_unlocked, llm_usage, budget_changed and the approval
 * entries)
 * yield nothing; a compaction yields one `compaction` entry holding the summary (the entries it
 * summarized stay in history); a context_excluded entry yields one `context_excluded` entry
 * saying which entries the model is no longer sent, so a reader sees what requests leave out.
 *
 * Further rules: a tool_result entry's `tool` carries `is_error` (false unless the
 * tool reported an error); an empty or redacted reasoning item still yields a `thinking` entry,
 * with no content; a message in a hook_injected_items or note entry is a `note`; a tool result
 * whose call is not in the log gets the tool name "". A thinking entry carries
 * `thinking_duration_ms` (null when its reasoning item was not timed, e.g. in older logs). The
 * entries of an answer an interrupt cut short carry `interrupted: true` (absent otherwise).
 */
import type {
  HistoryCompaction,
  HistoryEntryKind,
  HistoryExclusion,
  HistoryTool,
  InlinePart,
} from "../../api/history.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import type { Item, ReasoningItem } from "../../model/items.js";
import type { JsonValue } from "../../model/json.js";
import { parseToolArguments } from "../../model/tool-arguments.js";
import type { FullHistoryEntry } from "./history-entry.js";

/** Tool names by call id, gathered from the tool calls seen so far in a log. */
export type ToolNames = Map<string, string>;

/** The position and entry of a log entry (a PositionedEntry is one). */
export type PlacedEntry = Pick<PositionedEntry, "position" | "entry">;

interface Draft {
  kind: HistoryEntryKind;
  content: InlinePart[];
  tool: HistoryTool | null;
  /** Thinking only: how long the model thought (ms), null when the log does not say. */
  thinkingMs?: number | null;
  compaction?: HistoryCompaction;
  excluded?: HistoryExclusion;
}

/** Whether the log entry yields at least one history entry (cheaper than projecting it). */
export function projectsToHistory(entry: LogEntry): boolean {
  return (
    entry.kind === "continuation" ||
    entry.kind === "compaction" ||
    entry.kind === "context_excluded" ||
    itemsOf(entry).length > 0
  );
}

/** Record the names of the entry's tool calls in `names`. */
export function recordToolNames(entry: LogEntry, names: ToolNames): void {
  for (const item of itemsOf(entry)) {
    if (item.type === "tool_call") names.set(item.call_id, item.name);
  }
}

/** The call ids the entry's tool results answer (whose names `projectEntry` looks up). */
export function toolResultCallIds(entry: LogEntry): string[] {
  const ids: string[] = [];
  for (const item of itemsOf(entry)) if (item.type === "tool_result") ids.push(item.call_id);
  return ids;
}

/**
 * The history entries of one log entry, oldest first. `toolNames` names the tool calls seen
 * earlier in the log (for tool_result entries); this entry's own calls are added to it, so a
 * caller feeding a log in order can keep one map.
 */
export function projectEntry(placed: PlacedEntry, toolNames: ToolNames = new Map()): FullHistoryEntry[] {
  const { position, entry } = placed;
  recordToolNames(entry, toolNames);
  const drafts = draftsOf(entry, toolNames);
  if (drafts.length === 0) return [];
  const createdAt = new Date(entry.ts).toISOString();
  const turnId = "turn_id" in entry ? (entry.turn_id ?? null) : null;
  const inputId = "input_id" in entry ? (entry.input_id ?? null) : null;
  const interrupted = entry.kind === "assistant_items" && entry.interrupted === true;
  return drafts.map((draft, k) => {
    const id =
      draft.kind === "continuation" && inputId !== null
        ? `continue-${inputId}`
        : drafts.length === 1
          ? `${position}`
          : `${position}-${k}`;
    // A fork starts at an item or a compaction; an exclusion is no place to start from.
    const checkpointable =
      draft.kind !== "thinking" && draft.kind !== "continuation" && draft.kind !== "context_excluded";
    return {
      id,
      position,
      kind: draft.kind,
      turn_id: turnId,
      input_id: inputId,
      created_at: createdAt,
      content: draft.content,
      checkpoint_id: checkpointable ? id : null,
      tool: draft.tool,
      ...(draft.thinkingMs === undefined ? {} : { thinking_duration_ms: draft.thinkingMs }),
      ...(draft.compaction === undefined ? {} : { compaction: draft.compaction }),
      ...(draft.excluded === undefined ? {} : { excluded: draft.excluded }),
      ...(interrupted ? { interrupted: true as const } : {}),
    };
  });
}

/**
 * Whether a log entry has a place in the transcript: whether `projectEntry` gives it an entry
 * other than a continuation. Answered without projecting it (a preview asks on every commit).
 */
export function inTranscript(entry: LogEntry): boolean {
  return entry.kind === "compaction" || entry.kind === "context_excluded" || itemsOf(entry).length > 0;
}

/** The history entries of a whole log (or a contiguous run of it from position 0), oldest first. */
export function projectLog(entries: readonly PlacedEntry[]): FullHistoryEntry[] {
  const names: ToolNames = new Map();
  const out: FullHistoryEntry[] = [];
  for (const placed of entries) {
    for (const projected of projectEntry(placed, names)) out.push(projected);
  }
  return out;
}

function draftsOf(entry: LogEntry, names: ToolNames): Draft[] {
  if (entry.kind === "continuation") return [{ kind: "continuation", content: [], tool: null }];
  if (entry.kind === "compaction") {
    return [
      {
        kind: "compaction",
        content: [{ kind: "text", text: entry.summary }],
        tool: null,
        compaction: {
          first_kept_position: entry.first_kept_position,
          before_tokens: entry.before_tokens,
          after_tokens: entry.after_tokens,
          trigger: entry.trigger ?? null,
        },
      },
    ];
  }
  if (entry.kind === "context_excluded") {
    const { from_position, to_position, reason } = entry;
    return [
      {
        kind: "context_excluded",
        content: [{ kind: "text", text: exclusionText(entry) }],
        tool: null,
        excluded: { from_position, to_position, reason },
      },
    ];
  }
  const injected = entry.kind === "hook_injected_items" || entry.kind === "note";
  return itemsOf(entry).map((item) => (injected ? asNote(draftOf(item, names), item) : draftOf(item, names)));
}

/** The items of a log entry, each of which becomes one history entry; bookkeeping carries none. */
function itemsOf(entry: LogEntry): readonly Item[] {
  switch (entry.kind) {
    case "session_start":
      return entry.history;
    case "user_input":
    case "note":
      return [entry.item];
    case "assistant_items":
    case "tool_results":
    case "hook_injected_items":
      return entry.items;
    case "continuation":
    case "turn_end":
    case "run_outcome":
    case "config_changed":
    case "locked":
    case "cache_unlocked":
    case "llm_usage":
    case "approval_policy_changed":
    case "approval_requested":
    case "approval_resolved":
    case "compaction":
    case "context_excluded":
    case "pruned":
    case "budget_changed":
      return [];
    default:
      return unreachable(entry);
  }
}

/** An exclusion in words: which entries, and why. */
function exclusionText(entry: Extract<LogEntry, { kind: "context_excluded" }>): string {
  const range =
    entry.from_position === entry.to_position
      ? `Entry ${entry.from_position} is`
      : `Entries ${entry.from_position}–${entry.to_position} are`;
  const why = entry.reason === "refusal" ? "the model refused that turn" : "a repair asked for it";
  const detail = entry.detail === undefined || entry.detail === "" ? "" : ` (${entry.detail})`;
  return `${range} no longer sent to the model: ${why}${detail}.`;
}

function asNote(draft: Draft, item: Item): Draft {
  return item.type === "message" ? { ...draft, kind: "note" } : draft;
}

function draftOf(item: Item, names: ToolNames): Draft {
  switch (item.type) {
    case "message": {
      const content: InlinePart[] = item.content.map((part) => ({
        kind: "text",
        text: part.type === "text" ? part.text : part.refusal,
      }));
      const kind: HistoryEntryKind =
        item.role === "user" ? "user" : item.role === "assistant" ? "assistant" : "note";
      return { kind, content, tool: null };
    }
    case "reasoning":
      return {
        kind: "thinking",
        content: thinkingContent(item),
        tool: null,
        thinkingMs: item.duration_ms ?? null,
      };
    case "tool_call":
      return {
        kind: "tool_call",
        content: [{ kind: "json", field: "arguments", value: parsedArguments(item.arguments) }],
        tool: { name: item.name, tool_call_id: item.call_id },
      };
    case "tool_result":
      return {
        kind: "tool_result",
        content: [{ kind: "json", field: "result", value: item.output }],
        tool: {
          name: names.get(item.call_id) ?? "",
          tool_call_id: item.call_id,
          is_error: item.is_error === true,
        },
      };
    default:
      return unreachable(item);
  }
}

function thinkingContent(item: ReasoningItem): InlinePart[] {
  if (item.redacted === true) return [];
  if (item.text !== "") return [{ kind: "text", text: item.text }];
  const summary = (item.summary ?? []).filter((line) => line !== "").join("\n\n");
  return summary === "" ? [] : [{ kind: "text", text: summary }];
}

// Models do emit invalid JSON now and then; the client still sees exactly what was sent.
function parsedArguments(raw: string): JsonValue {
  const args = parseToolArguments(raw);
  return args.kind === "invalid_json" ? raw : args.value;
}

function unreachable(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}
