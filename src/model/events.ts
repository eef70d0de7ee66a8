/**
 * Normalized stream events: what every provider adapter turns its wire protocol into and
 * what the Worker consumes. Blocks are addressed by `index`, unique within one response.
 *
 * Boundary rule: plain data and constructors only; no I/O.
 */
import type { ItemOrigin, MessagePhase } from "./items.js";
import type { JsonObject } from "./json.js";
import type { Usage } from "./usage.js";

export type BlockType = "text" | "thinking" | "tool_use";

export type StopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "content_filter"
  | "refusal";

/**
 * A text block may belong to a provider message item (Responses `msg_...` with its `phase`):
 * text blocks of different items become different messages.
 */
export type BlockStart =
  | { type: "text"; item_id?: string; phase?: MessagePhase }
  | { type: "thinking" }
  | {
      type: "tool_use";
      id: string;
      name: string;
      item_id?: string;
      signature?: string;
      /** Who produced `signature` (stamped by the client). */
      origin?: ItemOrigin;
    };

export type BlockDelta =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string }
  | { type: "input_json"; json: string };

/** What a provider needs back to accept a thinking block in a later request. */
export interface ReasoningData {
  id?: string;
  text?: string;
  summary?: string[];
  signature?: string;
  encrypted_content?: string;
  redacted?: boolean;
  /** OpenRouter `reasoning_details`, as received. */
  details?: JsonObject[];
  /** Who produced this reasoning (stamped by the client). */
  origin?: ItemOrigin;
}

export type ResponseStatus = "started" | "completed" | "cancelled" | "failed";

/** A provider request is being retried after a transient failure. */
export interface RetryNotice {
  /** The attempt that failed, 1-based. */
  attempt: number;
  max_attempts: number;
  delay_ms: number;
  reason: string;
  status?: number;
  /**
   * The request was refused for an optional field or a history item and is sent again at once
   * without it: what was left out (`delay_ms` is 0).
   */
  adjusted?: string[];
}

/** Why the model refused (Anthropic `stop_details`), when the provider says. */
export interface RefusalDetails {
  category?: string;
  explanation?: string;
}

export type StreamEvent =
  | { type: "block_start"; index: number; block: BlockStart }
  | { type: "block_delta"; index: number; delta: BlockDelta }
  | {
      type: "block_stop";
      index: number;
      /** The block's type when the provider says it; the Worker tracks index → type anyway. */
      block_type?: BlockType;
      stop_reason?: StopReason;
      reasoning?: ReasoningData;
      /** Text blocks: a Gemini thought signature that arrived on this text. */
      signature?: string;
      /** Who produced `signature` (stamped by the client). */
      origin?: ItemOrigin;
    }
  | { type: "block_abort"; index: number; block_type?: BlockType; reason: string }
  | { type: "usage"; usage: Usage }
  | { type: "status"; status: ResponseStatus; stop_reason?: StopReason; refusal?: RefusalDetails }
  | { type: "error"; code?: string; message: string }
  | { type: "retry"; retry: RetryNotice }
  | { type: "ping" };

/** Opens text block `index`. */
export function textBlockStart(index: number): StreamEvent {
  return { type: "block_start", index, block: { type: "text" } };
}

/** Text for block `index`. */
export function textDelta(index: number, text: string): StreamEvent {
  return { type: "block_delta", index, delta: { type: "text", text } };
}

/** Closes text block `index`, with the response's stop reason when it ends there. */
export function textBlockStop(index: number, stopReason?: StopReason): StreamEvent {
  return stopReason === undefined
    ? { type: "block_stop", index, block_type: "text" }
    : { type: "block_stop", index, block_type: "text", stop_reason: stopReason };
}

/** Opens thinking block `index`. */
export function thinkingBlockStart(index: number): StreamEvent {
  return { type: "block_start", index, block: { type: "thinking" } };
}

/** Thinking text for block `index`. */
export function thinkingDelta(index: number, text: string): StreamEvent {
  return { type: "block_delta", index, delta: { type: "thinking", text } };
}

/** Closes thinking block `index` with what the provider needs to accept it back. */
export function thinkingBlockStop(index: number, reasoning?: ReasoningData): StreamEvent {
  return reasoning === undefined
    ? { type: "block_stop", index, block_type: "thinking" }
    : { type: "block_stop", index, block_type: "thinking", reasoning };
}

/** Opens tool-use block `index` for call `id` of tool `name`. */
export function toolUseStart(index: number, id: string, name: string): StreamEvent {
  return { type: "block_start", index, block: { type: "tool_use", id, name } };
}

/** A fragment of the arguments JSON of tool-use block `index`. */
export function toolInputDelta(index: number, json: string): StreamEvent {
  return { type: "block_delta", index, delta: { type: "input_json", json } };
}

/** Closes tool-use block `index` (stop reason tool_use). */
export function toolUseStop(index: number): StreamEvent {
  return { type: "block_stop", index, block_type: "tool_use", stop_reason: "tool_use" };
}

/** Block `index` ended unfinished (a broken or cancelled stream). */
export function blockAbort(index: number, reason: string): StreamEvent {
  return { type: "block_abort", index, reason };
}

/** A usage report with total = input + output. */
export function usageEvent(inputTokens: number, outputTokens: number): StreamEvent {
  return {
    type: "usage",
    usage: {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
    },
  };
}

/** The response's status, with its stop reason when it ended. */
export function statusEvent(status: ResponseStatus, stopReason?: StopReason): StreamEvent {
  return stopReason === undefined
    ? { type: "status", status }
    : { type: "status", status, stop_reason: stopReason };
}

/** An error the provider reported inside the stream. */
export function errorEvent(message: string, code?: string): StreamEvent {
  return code === undefined ? { type: "error", message } : { type: "error", code, message };
}

/** A keepalive from the provider. */
export function pingEvent(): StreamEvent {
  return { type: "ping" };
}
