/**
 * Conversation items: the provider-neutral history a Worker keeps and the log stores.
 *
 * Boundary rule: plain data only. Field names are snake_case because these objects are
 * persisted verbatim (log entries, canonical JSON for the hash chain) and must never change
 * shape with a refactor of the code that uses them.
 */

import type { JsonObject } from "./json.js";

export type Role = "user" | "assistant" | "system";

export type ContentPart = { type: "text"; text: string } | { type: "refusal"; refusal: string };

/**
 * Which client and model produced an item's provider payload (a signature, encrypted reasoning,
 * a thought signature). Payloads are only valid for the provider that issued them, so request
 * builders send them back only to the same `provider` label and `model`. An item without an
 * origin was written before items were tagged; it is treated as coming from whichever provider
 * reads it, when its payload has that provider's shape (docs/providers.md).
 */
export interface ItemOrigin {
  /** The client's provider label (`LlmClient.provider`: "anthropic", "openai-responses", ...). */
  provider: string;
  model: string;
}

/** OpenAI Responses labels assistant messages as intermediate commentary or the final answer. */
export type MessagePhase = "commentary" | "final_answer";

export interface MessageItem {
  type: "message";
  role: Role;
  content: ContentPart[];
  /** Provider-assigned id (e.g. OpenAI Responses `msg_...`), kept so it can be sent back. */
  id?: string;
  /** OpenAI Responses `phase`, resent as received. */
  phase?: MessagePhase;
  /** Gemini thought signature that arrived on this text; must be sent back on the same part. */
  signature?: string;
  /** Who produced `signature` (set only with it). */
  origin?: ItemOrigin;
}

export interface ToolCallItem {
  type: "tool_call";
  call_id: string;
  name: string;
  /** The arguments as a JSON string, exactly as the model produced them. */
  arguments: string;
  /** Provider item id (OpenAI Responses `fc_...`), when it differs from call_id. */
  id?: string;
  /** Gemini thought signature attached to this call; must be sent back with it. */
  signature?: string;
  /** Who produced `signature` (set only with it). */
  origin?: ItemOrigin;
}

export interface ToolResultItem {
  type: "tool_result";
  call_id: string;
  output: string;
  is_error?: boolean;
}

/**
 * Model reasoning ("thinking"), kept with whatever the provider needs to accept it back:
 * Anthropic's signature (or redacted data), OpenAI Responses' encrypted content, summary and
 * item id (with `store: true` the id alone stands for the stored reasoning), Gemini's thought
 * signature.
 */
export interface ReasoningItem {
  type: "reasoning";
  text: string;
  summary?: string[];
  signature?: string;
  encrypted_content?: string;
  /** Anthropic `redacted_thinking`: the opaque data is in encrypted_content, text is empty. */
  redacted?: boolean;
  id?: string;
  /**
   * How long the model spent on it, in ms: from the response's start (or the end of the output
   * before it) to the end of its block (set by a Worker given a clock; never sent to a provider).
   */
  duration_ms?: number;
  /**
   * OpenRouter's `reasoning_details` (text, summary and encrypted entries), kept as received:
   * models behind it (Gemini 3, Claude, OpenAI) need them back in a tool loop.
   */
  details?: JsonObject[];
  /** Who produced this reasoning; absent in logs written before items were tagged. */
  origin?: ItemOrigin;
}

export type Item = MessageItem | ToolCallItem | ToolResultItem | ReasoningItem;

/** A user message with one text part. */
export function userMessage(text: string): MessageItem {
  return { type: "message", role: "user", content: [{ type: "text", text }] };
}

/** An assistant message with one text part. */
export function assistantMessage(text: string): MessageItem {
  return { type: "message", role: "assistant", content: [{ type: "text", text }] };
}

/** A system message with one text part (sent as a user turn to providers without a system role). */
export function systemMessage(text: string): MessageItem {
  return { type: "message", role: "system", content: [{ type: "text", text }] };
}

/** A tool call; `args` is the JSON string of the arguments. */
export function toolCall(callId: string, name: string, args: string): ToolCallItem {
  return { type: "tool_call", call_id: callId, name, arguments: args };
}

/** A tool result; `isError` is kept only when true so ordinary results stay small. */
export function toolResult(callId: string, output: string, isError = false): ToolResultItem {
  return isError
    ? { type: "tool_result", call_id: callId, output, is_error: true }
    : { type: "tool_result", call_id: callId, output };
}

/** A reasoning item with optional provider round-trip data. */
export function reasoning(text: string, extra: Omit<ReasoningItem, "type" | "text"> = {}): ReasoningItem {
  return { type: "reasoning", text, ...extra };
}

/** True for a message with the user role. */
export function isUserMessage(item: Item): item is MessageItem {
  return item.type === "message" && item.role === "user";
}

/** True for a message with the assistant role. */
export function isAssistantMessage(item: Item): item is MessageItem {
  return item.type === "message" && item.role === "assistant";
}

/** True for a tool call. */
export function isToolCall(item: Item): item is ToolCallItem {
  return item.type === "tool_call";
}

/** True for a tool result. */
export function isToolResult(item: Item): item is ToolResultItem {
  return item.type === "tool_result";
}

/** True for a reasoning item. */
export function isReasoning(item: Item): item is ReasoningItem {
  return item.type === "reasoning";
}

/** The concatenated text parts of a message (refusals included), or "" for other items. */
export function messageText(item: Item): string {
  if (item.type !== "message") return "";
  return item.content.map((part) => (part.type === "text" ? part.text : part.refusal)).join("");
}

/** Whether an item's provider payload may be sent to `target`: same provider and model, or untagged. */
export function payloadFits(origin: ItemOrigin | undefined, target: ItemOrigin): boolean {
  return origin === undefined || (origin.provider === target.provider && origin.model === target.model);
}
