/**
 * Interceptor: optional hooks that steer a run (approve, rewrite, skip, pause or stop it).
 *
 * Boundary rule: types plus the one guard for actions a hook may return at run time. Hooks get
 * copies or read-only views and answer with an action; they never mutate the Worker directly.
 * A hook that throws (or rejects) fails the run with `WorkerError` kind "aborted".
 */
import type { Item, ToolCallItem } from "../model/items.js";
import type { ToolMeta } from "../model/tools.js";
import { WorkerError } from "./errors.js";

/** A hook may answer synchronously or with a promise. */
export type Awaitable<T> = T | Promise<T>;

/** A tool result as hooks see and produce it. */
export interface ToolCallResult {
  output: string;
  is_error?: boolean;
}

export type PromptSubmitAction =
  /** Go on, optionally with a replacement for the user item. */
  | { action: "continue"; item?: Item }
  /** Stop the run before anything is committed. */
  | { action: "cancel"; reason: string };

export type BeforeRequestAction =
  /** Send the request, optionally with other items (this request only; history is untouched). */
  | { action: "continue"; items?: Item[] }
  | { action: "cancel"; reason: string }
  /** End the run with "yielded" without sending the request. */
  | { action: "yield" };

export type BeforeToolCallAction =
  /** Run the tool, optionally with a rewritten call (its result is still filed under the original call_id). */
  | { action: "continue"; call?: ToolCallItem }
  /** Do not run the tool; the call gets an is_error "skipped" result. */
  | { action: "skip"; reason?: string }
  /** Fail the run; no result of this batch is committed. */
  | { action: "abort"; reason: string }
  /** End the run with "paused"; no tool of this batch runs, all its calls stay pending for `resume()`. */
  | { action: "pause" }
  /** Do not run the tool; commit this result instead. */
  | { action: "result"; result: ToolCallResult };

export type AfterToolCallAction =
  /** Keep the result, or replace it. */
  | { action: "continue"; result?: ToolCallResult }
  /** Fail the run; no result of this batch is committed. */
  | { action: "abort"; reason: string };

export type RunEndAction =
  | { action: "finish" }
  /** Append these items to history and send another request. */
  | { action: "continue"; messages: Item[] }
  | { action: "pause" };

/** Every hook is optional; a missing hook means "continue" (or "finish" for onRunEnd). */
export interface Interceptor {
  /** Before the user's input is committed; `item` is a fresh user message. */
  onPromptSubmit?(item: Item): Awaitable<PromptSubmitAction>;
  /**
   * Before each LLM request (before `beforeRequest`), with the history itself rather than a
   * copy: for hooks that only read it or replace it wholesale (`items` in the answer), which a
   * long history would otherwise pay a deep copy for on every request. It must not change it.
   */
  inspectRequest?(items: readonly Item[]): Awaitable<BeforeRequestAction>;
  /** Before each LLM request, with a deep copy of the history that will be sent. */
  beforeRequest?(items: Item[]): Awaitable<BeforeRequestAction>;
  /** Before a tool batch runs, once per call to a known tool with valid arguments, in call order. */
  beforeToolCall?(call: ToolCallItem, meta: ToolMeta): Awaitable<BeforeToolCallAction>;
  /** After the batch, once per executed call, in call order. */
  afterToolCall?(call: ToolCallItem, result: ToolCallResult): Awaitable<AfterToolCallAction>;
  /** After a response without tool calls. */
  onRunEnd?(history: readonly Item[]): Awaitable<RunEndAction>;
  /** When a run fails, with the failure's reason; its own failures are ignored. */
  onAbort?(reason: string): Awaitable<void>;
}

/** Fails the run when a hook returns something outside its action union (possible from plain JS). */
export function unknownAction(hook: keyof Interceptor, action: never): never {
  throw WorkerError.aborted(`interceptor ${hook} returned an unknown action: ${JSON.stringify(action)}`);
}
