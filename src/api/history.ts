/**
 * Session history as the HTTP API sends it: entries (one per item of a committed log entry),
 * their content parts, pages (`GET /sessions/{id}/history` and a snapshot's `history`) and the
 * slices of a truncated part's content (`GET /sessions/{id}/entries/{entry_id}/content`).
 *
 * Boundary rule: plain types in their wire shape (snake_case, JSON) and one type guard; the
 * daemon builds them from the log (src/daemon/history), a client reads them.
 */
import type { JsonValue } from "../model/json.js";

export type HistoryEntryKind =
  | "user"
  | "assistant"
  | "thinking"
  | "tool_call"
  | "tool_result"
  | "note"
  | "continuation"
  | "compaction"
  | "context_excluded";

/** A content part as the log holds it, whole. */
export type InlinePart =
  | { kind: "text"; text: string }
  | { kind: "json"; field: "arguments" | "result"; value: JsonValue };

/**
 * What the fetched content of a truncated part is: the text itself (`text` parts, and `json`
 * parts whose value is a string), or the JSON text of the part's value.
 */
export type ContentEncoding = "text" | "json";

/** What a truncated part carries besides its preview. */
export interface TruncationMarker {
  truncated: true;
  /** UTF-8 bytes of the whole content. */
  bytes: number;
  encoding: ContentEncoding;
  /** Path (with query) of the content route that serves the whole content in slices. */
  ref: string;
}

/**
 * A part too large to send inline: `text` (or `value`, then always a string) holds only the
 * first characters of the content.
 */
export type TruncatedPart =
  | ({ kind: "text"; text: string } & TruncationMarker)
  | ({ kind: "json"; field: "arguments" | "result"; value: string } & TruncationMarker);

export type HistoryPart = InlinePart | TruncatedPart;

/** Whether a part came truncated (its content is fetched through its `ref`). */
export function isTruncatedPart(part: HistoryPart): part is TruncatedPart {
  return "truncated" in part && part.truncated === true;
}

/** The tool a tool_call or tool_result entry is about. */
export interface HistoryTool {
  name: string;
  tool_call_id: string;
  /** Only on tool_result entries: whether the tool reported an error. */
  is_error?: boolean;
}

/** One history entry: what a client sees of one item of a committed log entry. */
export interface HistoryEntry {
  /** `"<position>"`, `"<position>-<k>"` or `"continue-<input_id>"`. */
  id: string;
  /** The log position the entry comes from (several entries may share one). */
  position: number;
  kind: HistoryEntryKind;
  turn_id: string | null;
  input_id: string | null;
  /** RFC 3339 with milliseconds, UTC: the log entry's time. */
  created_at: string;
  content: HistoryPart[];
  /** The id a fork may start from (this entry included), or null for thinking and continuation. */
  checkpoint_id: string | null;
  tool: HistoryTool | null;
  /** Thinking entries only: ms from the first thinking delta to the end of the block; null when unknown. */
  thinking_duration_ms?: number | null;
  /** Compaction entries only: what the compaction kept and saved (`content` holds the summary). */
  compaction?: HistoryCompaction;
  /** Context_excluded entries only: the entries left out of the model's context (`content` says so in words). */
  excluded?: HistoryExclusion;
}

/**
 * A compaction as history shows it: from here on the model sees the summary plus the entries
 * from `first_kept_position` on; the token counts are the daemon's estimates of the context.
 */
export interface HistoryCompaction {
  first_kept_position: number;
  before_tokens: number;
  after_tokens: number;
  /** `auto` (the fill threshold), `overflow` (the provider refused a long request), `manual`; null in entries that do not say. */
  trigger: "auto" | "overflow" | "manual" | null;
}

/**
 * Entries the model is no longer sent: the items of log positions `from_position` through
 * `to_position` leave every later request (their history entries stay). `reason` is `refusal`
 * (the model refused that turn) or `repair` (a client asked, `POST /sessions/{id}/repair`).
 */
export interface HistoryExclusion {
  from_position: number;
  to_position: number;
  reason: "refusal" | "repair";
}

/** `GET /sessions/{id}/history` and a snapshot's `history`. */
export interface HistoryPage {
  /** Oldest first. */
  items: HistoryEntry[];
  /** A token for the page before this one, or null when nothing older exists. */
  older: string | null;
  /** A token for the page after this one (up to `high_water`), or null. */
  newer: string | null;
  /** The log head position this page (and every page reached from its tokens) is bounded by. */
  high_water: number;
  /** True when the byte budget ended the page before `limit` positions (more follow in its direction). */
  byte_limited: boolean;
}

/** The query of `GET /sessions/{id}/history`: the newest page without one; at most one of next, before, after. */
export interface HistoryQuery {
  /** Positions per page, 1..200 (default 100); must equal the limit a `next` token was issued for. */
  limit?: number;
  /** An `older` or `newer` token of an earlier page. */
  next?: string;
  /** Read backwards from this log position (exclusive). */
  before?: number;
  /** Read forwards from this log position (exclusive, except 0: from the start). */
  after?: number;
}

/** `GET /sessions/{id}/entries/{entry_id}/content`: one slice of a part's whole content. */
export interface ContentSlice {
  entry_id: string;
  part: number;
  encoding: ContentEncoding;
  /** UTF-8 bytes of the whole content. */
  bytes: number;
  /** UTF-8 byte offset of this slice's text. */
  offset: number;
  /** Where the next slice starts, or null after the last one. */
  next_offset: number | null;
  text: string;
}

/** The query of `GET /sessions/{id}/entries/{entry_id}/content` (a part's `ref` carries `part`). */
export interface ContentQuery {
  /** The part's index in the entry's `content`. */
  part: number;
  /** UTF-8 byte offset where the slice starts (default 0); must start a character. */
  offset?: number;
  /** Most bytes the slice's text takes as a JSON string (1..983040, the default). */
  limit?: number;
}
