/**
 * Test helpers for provider tests: run a client to the end collecting events and the error,
 * and read the normalized events back as text, thinking and tool calls.
 */
import type { ReasoningData, StreamEvent } from "../../src/model/events.js";
import { userMessage } from "../../src/model/items.js";
import type { LlmClient, LlmRequest } from "../../src/model/llm-client.js";
import { LlmClientError } from "../../src/model/llm-client.js";
import type { ToolMeta } from "../../src/model/tools.js";
import type { LlmClientOptions } from "../../src/providers/create-llm-client.js";
import { createLlmClient } from "../../src/providers/index.js";
import type { ProviderProtocol } from "../../src/providers/provider-profile.js";

export const protocols: readonly ProviderProtocol[] = [
  "chat_completions",
  "responses",
  "anthropic",
  "gemini",
];

/** What a stream produced: every event, and the error it ended with (if any). */
export interface Collected {
  events: StreamEvent[];
  error: LlmClientError | undefined;
}

/** Runs `client.stream` to the end. Non-client errors are rethrown (they are bugs). */
export async function collect(
  client: LlmClient,
  request: LlmRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<Collected> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of client.stream(request, signal)) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    if (error instanceof LlmClientError) return { events, error };
    throw error;
  }
}

/** A one-message request. */
export function ask(text = "hi", tools: ToolMeta[] = []): LlmRequest {
  return { items: [userMessage(text)], tools, config: {} };
}

/** A client for `protocol` against a fake provider, with fast retries. */
export function clientFor(
  protocol: ProviderProtocol,
  baseUrl: string,
  options: LlmClientOptions = {},
  model = "test-model",
): LlmClient {
  return createLlmClient(
    { protocol, baseUrl, model, apiKey: "test-key" },
    { retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...options },
  );
}

/** The concatenated text deltas. */
export function textOf(events: readonly StreamEvent[]): string {
  let text = "";
  for (const event of events) {
    if (event.type === "block_delta" && event.delta.type === "text") text += event.delta.text;
  }
  return text;
}

/** The concatenated thinking deltas. */
export function thinkingOf(events: readonly StreamEvent[]): string {
  let text = "";
  for (const event of events) {
    if (event.type === "block_delta" && event.delta.type === "thinking") text += event.delta.text;
  }
  return text;
}

/** The reasoning data of every thinking stop, in order, without the origin stamp (tested on its own). */
export function reasoningOf(events: readonly StreamEvent[]): ReasoningData[] {
  const found: ReasoningData[] = [];
  for (const event of events) {
    if (event.type === "block_stop" && event.reasoning !== undefined) {
      const { origin: _origin, ...data } = event.reasoning;
      found.push(data);
    }
  }
  return found;
}

export interface CollectedCall {
  id: string;
  name: string;
  args: string;
  item_id?: string;
  signature?: string;
  closed: boolean;
}

/** The tool calls, assembled from starts, input deltas and stops. */
export function toolCallsOf(events: readonly StreamEvent[]): CollectedCall[] {
  const calls = new Map<number, CollectedCall>();
  for (const event of events) {
    if (event.type === "block_start" && event.block.type === "tool_use") {
      const call: CollectedCall = { id: event.block.id, name: event.block.name, args: "", closed: false };
      if (event.block.item_id !== undefined) call.item_id = event.block.item_id;
      if (event.block.signature !== undefined) call.signature = event.block.signature;
      calls.set(event.index, call);
    } else if (event.type === "block_delta" && event.delta.type === "input_json") {
      const call = calls.get(event.index);
      if (call !== undefined) call.args += event.delta.json;
    } else if (event.type === "block_stop") {
      const call = calls.get(event.index);
      if (call !== undefined) call.closed = true;
    }
  }
  return [...calls.values()];
}

/**
 * Checks the block discipline every consumer relies on: indices unique per response, deltas
 * and stops only for open blocks, and every started block stopped or aborted by the end.
 */
export function assertWellFormed(events: readonly StreamEvent[]): void {
  const open = new Set<number>();
  const seen = new Set<number>();
  for (const event of events) {
    switch (event.type) {
      case "block_start":
        if (seen.has(event.index)) throw new Error(`block index ${event.index} started twice`);
        seen.add(event.index);
        open.add(event.index);
        break;
      case "block_delta":
        if (!open.has(event.index)) throw new Error(`delta for block ${event.index}, which is not open`);
        break;
      case "block_stop":
      case "block_abort":
        if (!open.delete(event.index)) throw new Error(`stop for block ${event.index}, which is not open`);
        break;
      default:
        break;
    }
  }
  if (open.size > 0) throw new Error(`blocks left open: ${[...open].join(", ")}`);
}

/** The retry notices of a stream. */
export function retriesOf(
  events: readonly StreamEvent[],
): Extract<StreamEvent, { type: "retry" }>["retry"][] {
  const found: Extract<StreamEvent, { type: "retry" }>["retry"][] = [];
  for (const event of events) if (event.type === "retry") found.push(event.retry);
  return found;
}
