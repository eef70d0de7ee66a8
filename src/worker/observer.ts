/**
 * WorkerObserver: read-only notifications for the owner of a Worker (the daemon publishes live
 * deltas from `onEvent` and persists each committed step from `onItemsCommitted`).
 *
 * Boundary rule: types only. Observers cannot steer the run (that is the Interceptor's job).
 * Every callback except `onItemsCommitted` is synchronous and must be cheap: it runs inline in
 * the stream loop. An observer that throws fails the run with `WorkerError` kind "aborted"; when
 * `onItemsCommitted` throws or rejects, the items it was told about are taken back out of history,
 * so memory never holds a step the owner failed to persist.
 */
import type { StreamEvent } from "../model/events.js";
import type { Item, ToolCallItem, ToolResultItem } from "../model/items.js";
import type { Usage } from "../model/usage.js";

/** What a batch of committed items is. */
export type CommitKind =
  /** The user's input of a run. */
  | "user_input"
  /** Reasoning, text and tool calls of one model response. */
  | "assistant"
  /** Results of one tool batch (or answers to calls left pending by an interrupted run). */
  | "tool_results"
  /** Items an interceptor's onRunEnd "continue" appended. */
  | "injected";

export interface WorkerObserver {
  /** Every stream event as it arrives, before the Worker acts on it. */
  onEvent?(event: StreamEvent): void;
  /**
   * Items were appended to history. Awaited before the run goes on, so a persistence layer can
   * make each step durable (e.g. tool calls before their tools run).
   */
  onItemsCommitted?(items: readonly Item[], kind: CommitKind): void | Promise<void>;
  /** An approved tool call starts executing. */
  onToolCallStart?(call: ToolCallItem): void;
  /** An executed tool call finished (before afterToolCall may rewrite its result). */
  onToolCallEnd?(call: ToolCallItem, result: ToolResultItem): void;
  /** An LLM request/response cycle begins; `request` is the 0-based cumulative count. */
  onRequestStart?(request: number): void;
  /** A request ended: its response was committed (or beforeRequest cancelled/yielded it). */
  onRequestEnd?(request: number, usage: Usage): void;
}
