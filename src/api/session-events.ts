/**
 * A session's event stream (`GET /sessions/{id}` with `Accept: text/event-stream`): the `data`
 * of each event type, the events themselves and the frames that carry them.
 *
 * Boundary rule: plain types in their wire shape (snake_case); the daemon publishes them
 * (src/daemon/session/session-events.ts), a client decodes them (src/client/stream-batch.ts).
 */
import type { ApprovalRecord, PendingApproval } from "./approvals.js";
import type { HistoryEntry } from "./history.js";
import type { EndedTurnState, InputReceipt } from "./inputs.js";
import type { SessionStatus } from "./session-snapshot.js";

/** The `data` of each event type a session publishes. */
export interface SessionEventData {
  /** The session's status, as a snapshot shows it; published only when it changed. */
  status: SessionStatus;
  input: { input: InputReceipt };
  /** Merged text deltas of one model message; `message_id` is `<run_id>:<n>`. */
  text: { run_id: string; message_id: string; text: string };
  /** Merged thinking deltas; `message_id` is `<run_id>:<n>:thinking`. */
  thinking: { run_id: string; message_id: string; text: string };
  message: { entry: HistoryEntry };
  /**
   * Published when a call starts (`result` null) and when it ends. `truncated` is present when
   * the arguments or the result were cut to their start, with the full size in UTF-8 bytes.
   */
  tool: {
    tool_call_id: string;
    name: string;
    arguments: string;
    result: string | null;
    is_error: boolean;
    truncated?: { arguments?: number; result?: number };
  };
  /**
   * A model request sent again: after a transient failure (after `delay_ms`), or at once after a
   * refusal with `adjusted` saying what it leaves out (refused optional fields, or the history
   * item the refusal named).
   */
  retry: { run_id: string; attempt: number; reason: string; delay_ms: number; adjusted?: string[] };
  /** Tokens of one model request. */
  usage: {
    run_id: string;
    model: string;
    prompt_tokens: number;
    cached_prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
  };
  committed: { high_water: number };
  /**
   * `outcome` says why a turn that completed stopped: the model answered (`finished`), or the
   * turn reached its cap of tool rounds (`limit_reached`); `error` for the other states.
   */
  turn_completed: {
    run_id: string;
    state: EndedTurnState;
    input_ids: string[];
    outcome: "finished" | "limit_reached" | "paused" | "yielded" | "error";
  };
  /** A committed tool call waits for an answer (`POST /sessions/{id}/approvals/{call_id}`). */
  approval_requested: PendingApproval;
  /** A request was answered (by a client, a remembered rule, an interrupt or the turn's end). */
  approval_resolved: ApprovalRecord & { run_id: string | null };
  error: { run_id: string | null; code: string; message: string };
  /** A compaction began: the context's estimate now, and what the plan keeps (estimates). */
  compaction_started: CompactionEventData;
  /** A compaction's entry is in the log: `after_tokens` counts the summary and the kept items. */
  compaction_completed: CompactionEventData & { position: number };
  /** A compaction gave up; the session is exactly as before it. */
  compaction_failed: { run_id: string | null; trigger: CompactionTriggerName; message: string };
}

/** Why a compaction ran: the fill threshold, a provider's "context too long", or a client's request. */
export type CompactionTriggerName = "auto" | "overflow" | "manual";

/** What the compaction events carry (token counts are the daemon's estimates of the prompt). */
export interface CompactionEventData {
  /** The turn it ran in, or null for a manual compaction of an idle session. */
  run_id: string | null;
  trigger: CompactionTriggerName;
  before_tokens: number;
  after_tokens: number;
  first_kept_position: number;
}

export type SessionEventType = keyof SessionEventData;

/** One published event of a session. */
export type SessionEvent = {
  [K in SessionEventType]: { type: K; sequence: number; data: SessionEventData[K] };
}[SessionEventType];

/** Why a frame starts over from a snapshot instead of replaying. */
export type ResetReason = "initial" | "generation_changed" | "replay_unavailable";

/** The event a frame starts with when it carries a snapshot; it has no sequence. */
export interface ResetEvent {
  type: "reset";
  data: { reason: ResetReason };
}

/**
 * The JSON of one `data:` line of an event stream (its SSE `id` is `<generation>.<cursor>`):
 * events of type `E`, and the snapshot `S` when the first event is a reset.
 */
export interface StreamFrame<E, S> {
  generation: string;
  /** The sequence of the frame's last event: where a reconnect resumes. */
  cursor: number;
  events: Array<ResetEvent | E>;
  snapshot?: S;
}
