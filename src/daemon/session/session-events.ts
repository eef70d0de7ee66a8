/**
 * The session stream's event payloads (spec §5), one type per event, and the one function the
 * session layer publishes them with, so every event a client can receive has a checked shape.
 *
 * Boundary rule: types and a thin typed wrapper over `SessionFeed.publish`; text and thinking
 * deltas go through `SessionFeed.publishDelta`, which merges them per frame.
 */
import type { HistoryEntry } from "../history/history-entry.js";
import type { InputReceipt } from "../storage/inputs-table.js";
import type { EndedTurnState } from "../storage/turns-table.js";
import type { SessionFeed } from "../stream/session-feed.js";

/** The `data` of each event type a session publishes. */
export interface SessionEventData {
  status: { phase: "idle" | "running"; run_id: string | null; interrupt_requested: boolean };
  input: { input: InputReceipt };
  text: { run_id: string; message_id: string; text: string };
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
  turn_completed: { run_id: string; state: EndedTurnState; input_ids: string[] };
  error: { run_id: string | null; code: string; message: string };
}

/** Publish one event with the shape its type requires. */
export function publishEvent<T extends keyof SessionEventData>(
  feed: SessionFeed,
  type: T,
  data: SessionEventData[T],
): void {
  feed.publish(type, data);
}
