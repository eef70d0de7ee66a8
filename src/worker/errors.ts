/**
 * Typed failures of the Worker layer.
 *
 * Boundary rule: error classes only. A failed run always rejects with a `WorkerError`; misuse of
 * the Worker's lifecycle (mutating while locked, running twice at once) throws
 * `WorkerStateError`; a bad tool registration throws `DuplicateToolNameError` at `lock()`.
 */
import type { Item } from "../model/items.js";
import type { LlmClientError } from "../model/llm-client.js";
import type { ToolError } from "../model/tools.js";

export type WorkerErrorKind = "client" | "tool" | "aborted" | "cancelled";

/**
 * Why a run failed. `cause` holds the LlmClientError for "client" and the ToolError for "tool";
 * `reason` holds the interceptor's (or failing hook's) reason for "aborted" and the caller's
 * optional reason for "cancelled". Messages are stable: callers and tests match on them.
 */
export class WorkerError extends Error {
  readonly kind: WorkerErrorKind;
  readonly reason?: string;
  /**
   * Only on "cancelled": what the model's answer in flight had streamed when the run was
   * cancelled (its text and thinking, by value: see interrupted-answer.ts). Absent when no
   * answer was streaming or it had streamed nothing worth keeping.
   */
  readonly partial?: readonly Item[];

  private constructor(
    kind: WorkerErrorKind,
    message: string,
    reason?: string,
    cause?: unknown,
    partial?: readonly Item[],
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "WorkerError";
    this.kind = kind;
    if (reason !== undefined) this.reason = reason;
    if (partial !== undefined && partial.length > 0) this.partial = partial;
  }

  /** The LLM client failed to open or to finish the stream, or sent an `error` event. */
  static client(error: LlmClientError): WorkerError {
    return new WorkerError("client", `Client error: ${error.message}`, undefined, error);
  }

  /**
   * A tool failed in a way the model cannot be told about. The request loop itself never raises this:
   * thrown tools and `is_error` outputs become error results the model sees (see tool-batch.ts).
   */
  static tool(error: ToolError): WorkerError {
    return new WorkerError("tool", `Tool error: ${error.message}`, undefined, error);
  }

  /** An interceptor stopped the run, or a hook (interceptor or observer) threw. */
  static aborted(reason: string, cause?: unknown): WorkerError {
    return new WorkerError("aborted", `Aborted: ${reason}`, reason, cause);
  }

  /** The run was cancelled through `LockedWorker.cancel()` or its AbortSignal. */
  static cancelled(reason?: string, cause?: unknown): WorkerError {
    return new WorkerError("cancelled", "Cancelled", reason, cause);
  }

  /** The run was cancelled while the model answered; `partial` is what the answer had streamed. */
  static cancelledMidAnswer(reason: string | undefined, partial: readonly Item[]): WorkerError {
    return new WorkerError("cancelled", "Cancelled", reason, undefined, partial);
  }
}

export type WorkerStateErrorKind =
  /** A Worker mutator was called while the Worker is locked. */
  | "locked"
  /** A LockedWorker was used after `unlock()` (or `lock()` was called twice). */
  | "not_locked"
  /** `run`/`resume`/`unlock` was called while a run is in progress. */
  | "busy";

/** Misuse of the Worker's lock/run lifecycle; thrown synchronously, never from inside a run. */
export class WorkerStateError extends Error {
  readonly kind: WorkerStateErrorKind;
  readonly operation: string;

  constructor(kind: WorkerStateErrorKind, operation: string) {
    super(stateMessage(kind, operation));
    this.name = "WorkerStateError";
    this.kind = kind;
    this.operation = operation;
  }
}

function stateMessage(kind: WorkerStateErrorKind, operation: string): string {
  switch (kind) {
    case "locked":
      return `Worker is locked: ${operation} is not allowed until unlock()`;
    case "not_locked":
      return `Worker is not locked by this handle: ${operation} needs a current LockedWorker`;
    case "busy":
      return `A run is in progress: ${operation} must wait until it ends`;
    default: {
      const unknownKind: never = kind;
      return `Invalid worker state (${String(unknownKind)}) for ${operation}`;
    }
  }
}

/** The message of anything thrown, for error results and reasons. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Two tools with the same name were registered; raised when `lock()` materialises them. */
export class DuplicateToolNameError extends Error {
  readonly toolName: string;

  constructor(toolName: string) {
    super(`Duplicate tool name: ${toolName}`);
    this.name = "DuplicateToolNameError";
    this.toolName = toolName;
  }
}
