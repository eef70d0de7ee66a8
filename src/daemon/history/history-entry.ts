/**
 * The HTTP history entry (spec §6): what a client sees of one committed step of a session.
 *
 * Boundary rule: wire data only (snake_case, JSON-serializable); built by project-history.ts
 * from log entries, never stored.
 */
import type { JsonValue } from "../../model/json.js";

export type HistoryEntryKind =
  | "user"
  | "assistant"
  | "thinking"
  | "tool_call"
  | "tool_result"
  | "note"
  | "continuation";

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

/** The tool a tool_call or tool_result entry is about. */
export interface HistoryTool {
  name: string;
  tool_call_id: string;
  /** Only on tool_result entries: whether the tool reported an error. */
  is_error?: boolean;
}

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
}

/** A history entry straight from the log, every part whole (before any byte bound). */
export interface FullHistoryEntry extends HistoryEntry {
  content: InlinePart[];
}
