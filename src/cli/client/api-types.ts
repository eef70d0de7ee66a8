/**
 * The daemon's HTTP API as a client sees it (docs/../shared/spec/http-api.md, "protocol 3"):
 * request bodies, answers and stream events, in their wire shape (snake_case).
 *
 * Boundary rule: plain types only, written from the contract, not imported from the daemon's
 * modules, so a program using the client depends on the API and nothing behind it.
 */

/** `GET /server`. */
export interface ServerInfo {
  instance_id: string;
  protocol: number;
  state: "ready" | "draining";
  capabilities: Record<string, number>;
  version: string;
}

/** `POST /server/shutdown`. */
export interface ShutdownAnswer {
  instance_id: string;
  state: "draining";
}

/** A position in a session's event stream. */
export interface StreamCursor {
  generation: string;
  sequence: number;
}

export interface SessionStatus {
  phase: "idle" | "running";
  run_id: string | null;
  interrupt_requested: boolean;
  blocking_reason?: null | { code: string; detail: string };
}

export interface SessionPreview {
  text: string;
  transcript_count: number;
  truncated: boolean;
}

export interface SessionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_prompt_tokens: number;
  total_tokens: number;
}

/** One element of `GET /sessions`. */
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

/** How a session was created; a fork's checkpoint and entry hash are null when an older daemon made it. */
export type SessionCreation =
  | { kind: "new" }
  | { kind: "fork"; source_session_id: string; checkpoint_id: string | null; entry_hash: string | null };

export interface PendingInput {
  id: string;
  kind: string;
  accepted_at: string;
  acceptance_order: number;
  delivery: "pending";
}

/** `GET /sessions/{id}`, the answer of create/fork, and a stream reset's snapshot. */
export interface SessionSnapshot extends Omit<SessionSummary, "cursor"> {
  cursor: StreamCursor;
  pending_inputs: PendingInput[];
  history: HistoryPage;
}

export type HistoryEntryKind =
  | "user"
  | "assistant"
  | "thinking"
  | "tool_call"
  | "tool_result"
  | "note"
  | "continuation";

/**
 * Present on a part too large to send inline: `text` (or `value`, then a string) is only the
 * start of the content; `ref` serves all of it (see `ContentSlice`).
 */
export interface TruncationMarker {
  truncated: true;
  /** UTF-8 bytes of the whole content. */
  bytes: number;
  /** `text`: the content is the text itself; `json`: it is the JSON text of the part's value. */
  encoding: "text" | "json";
  /** Path of `GET /sessions/{id}/entries/{entry_id}/content?part=K`. */
  ref: string;
}

export type HistoryPart =
  | ({ kind: "text"; text: string } & Partial<TruncationMarker>)
  | ({ kind: "json"; field: "arguments" | "result"; value: unknown } & Partial<TruncationMarker>);

/** `GET /sessions/{id}/entries/{entry_id}/content`: one slice of a part's whole content. */
export interface ContentSlice {
  entry_id: string;
  part: number;
  encoding: "text" | "json";
  bytes: number;
  offset: number;
  /** Where the next slice starts, or null after the last one. */
  next_offset: number | null;
  text: string;
}

export interface HistoryEntry {
  id: string;
  position: number;
  kind: HistoryEntryKind;
  turn_id: string | null;
  input_id: string | null;
  created_at: string;
  content: HistoryPart[];
  /** The id a fork may start from, or null. */
  checkpoint_id: string | null;
  tool: null | { name: string; tool_call_id: string; is_error?: boolean };
  /** Thinking entries only: ms the model thought (null when unknown). */
  thinking_duration_ms?: number | null;
}

/** `GET /sessions/{id}/history` and a snapshot's `history`. */
export interface HistoryPage {
  items: HistoryEntry[];
  older: string | null;
  newer: string | null;
  high_water: number;
  /** The page ended before its limit of positions because it reached its byte budget. */
  byte_limited?: boolean;
}

/** Which history page to read: the newest by default. */
export interface HistoryQuery {
  limit?: number;
  next?: string;
  before?: number;
  after?: number;
}

export type TurnState = "running" | "completed" | "interrupted" | "abandoned" | "failed";

/** `GET /sessions/{sid}/inputs/{iid}` and the 202 of `PUT`. */
export interface InputReceipt {
  id: string;
  session_id: string;
  kind: string;
  admission: "accepted";
  accepted_at: string;
  acceptance_order: number;
  delivery: "pending" | "committed" | "cancelled";
  transcript_position: number | null;
  turn: null | { id: string; state: TurnState; started_at: string; ended_at: string | null };
  client_id?: string | null;
}

/** Body of `PUT /sessions/{sid}/inputs/{iid}`. */
export type InputBody =
  | { kind: "message"; text: string; client_id?: string }
  | { kind: "continue"; client_id?: string };

/** Body of `PUT /sessions/{id}` for a new session. */
export interface NewSessionBody {
  workspace: string;
  name?: string;
  provider_profile?: string;
  model?: string;
  system_prompt?: string;
}

/** Body of `PUT /sessions/{id}` for a fork. */
export interface ForkSessionBody {
  source_session_id: string;
  checkpoint_id: string;
  name?: string;
}

/** `POST /sessions/{sid}/interrupt`. */
export interface InterruptAnswer {
  run_id: string | null;
  state: "requested" | "already_ended";
  cancelled_input_ids: string[];
}

/** `POST /sessions/{sid}/inputs/{iid}/cancel`. */
export interface CancelAnswer {
  result: "cancelled" | "interrupt_requested" | "not_pending";
  input: InputReceipt;
}

/** `GET /sessions/{id}/verify`: the chain, its recorded head and the head's signature, checked now. */
export interface VerifyReport {
  session_id: string;
  status: "verified" | "corrupt";
  entries: number | null;
  head: null | {
    position: number;
    hash: string;
    signature: string | null;
    key_id: string | null;
    signature_status: "valid" | "invalid" | "unknown_key" | "unsigned";
  };
  problem: null | { position: number; reason: string };
  signing_key: { key_id: string; public_key: string };
}

/** `DELETE /sessions/{id}`. */
export interface DeleteAnswer {
  id: string;
  deleted: boolean;
}

/** The `data` of each stream event type (spec §5). */
export interface StreamEventData {
  status: { phase: "idle" | "running"; run_id: string | null; interrupt_requested: boolean };
  input: { input: InputReceipt };
  text: { run_id: string; message_id: string; text: string };
  thinking: { run_id: string; message_id: string; text: string };
  message: { entry: HistoryEntry };
  tool: {
    tool_call_id: string;
    name: string;
    arguments: string;
    result: string | null;
    is_error?: boolean;
    /** Set when arguments or result were cut to their start: their full size in UTF-8 bytes. */
    truncated?: { arguments?: number; result?: number };
  };
  retry: { run_id: string; attempt: number; reason: string; delay_ms: number };
  usage: {
    run_id: string;
    model: string;
    prompt_tokens: number;
    cached_prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
  };
  committed: { high_water: number };
  turn_completed: { run_id: string; state: TurnState; input_ids: string[] };
  error: { run_id: string | null; code: string; message: string };
}

export type StreamEventType = keyof StreamEventData;

/** One published event of a session. */
export type SessionEvent = {
  [K in StreamEventType]: { type: K; sequence: number; data: StreamEventData[K] };
}[StreamEventType];

/** Why a batch starts over from a snapshot instead of replaying. */
export type ResetReason = "initial" | "generation_changed" | "replay_unavailable";

/** One frame of the stream, with its reset (if any) split off the events. */
export interface StreamBatch {
  generation: string;
  cursor: number;
  /** Events after the reset, in order (event types this client does not know are dropped). */
  events: SessionEvent[];
  /** Present when the batch starts with a reset: rebuild the view from the snapshot. */
  reset: null | { reason: ResetReason; snapshot: SessionSnapshot };
  /** The frame's events exactly as received (reset included), for `--json` output. */
  raw: unknown[];
}

/** Which sessions `GET /sessions` lists: all (the default), the top-level ones, or one session's forks. */
export interface SessionListQuery {
  scope?: "all" | "top";
  /** List the forks of this session (not together with `scope`). */
  parent_id?: string;
}

/** The `data` of each event of the session list's stream. */
export interface SessionListEventData {
  created: { session: SessionSummary };
  /** Activity, preview, usage or input order changed: the summary as it is now. */
  updated: { session: SessionSummary };
  status: { id: string; parent_id: string | null; status: SessionStatus };
  deleted: { id: string; parent_id: string | null };
}

export type SessionListEventType = keyof SessionListEventData;

/** One published event of the session list. */
export type SessionListEvent = {
  [K in SessionListEventType]: { type: K; sequence: number; data: SessionListEventData[K] };
}[SessionListEventType];

/** One frame of the session list's stream, with its reset (if any) split off the events. */
export interface SessionListBatch {
  generation: string;
  cursor: number;
  events: SessionListEvent[];
  /** Present when the batch starts with a reset: replace the list with `snapshot.items`. */
  reset: null | { reason: ResetReason; snapshot: { items: SessionSummary[] } };
  raw: unknown[];
}
