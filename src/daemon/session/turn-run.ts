/**
 * One turn of a session: a Worker run over the session's history with its provider and tools,
 * publishing live output to the feed and handing every committed step to the actor to log.
 *
 * Boundary rule: a TurnRun never writes storage itself; `commitItems` (the actor's mailbox)
 * does, and the Worker awaits it, so a tool call is durable before its tool starts. It reports
 * how the turn ended; it never throws for the model's or a tool's failures, only for bugs.
 */
import type { RestoredState } from "../../log/collect-state.js";
import type { Outcome } from "../../log/entries.js";
import type { StreamEvent } from "../../model/events.js";
import type { Item, ToolCallItem, ToolResultItem } from "../../model/items.js";
import { LlmClientError } from "../../model/llm-client.js";
import type { ToolDefinition } from "../../model/tools.js";
import type { Usage } from "../../model/usage.js";
import { Worker, WorkerError, type WorkerResult } from "../../worker/index.js";
import { boundText } from "../history/bounded-entry.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { EndedTurnState } from "../storage/turns-table.js";
import type { SessionFeed } from "../stream/session-feed.js";
import { publishEvent, type SessionEventData } from "./session-events.js";
import type { BoundClient, SessionServices } from "./session-services.js";

/**
 * Why a turn was stopped from outside: a user's interrupt, the actor stopping, the daemon
 * shutting down, a step the storage could not write, or a log found changed behind its back.
 */
export type AbortCause = "interrupted" | "crashed" | "shutdown" | "storage" | "corrupt";

/** How a turn ended, for the log, the turns table and the stream. */
export interface TurnEnding {
  state: EndedTurnState;
  outcome: Outcome;
  interrupted: boolean;
  turnCount: number;
  /** Token usage of every model request of the turn, added up. */
  usage: Usage;
  error?: { code: string; message: string };
}

export interface TurnRunOptions {
  id: string;
  inputIds: readonly string[];
  services: SessionServices;
  session: SessionRow;
  /** The actor's live replay of the log; read at start, kept current by the actor's commits. */
  state: RestoredState;
  feed: SessionFeed;
  /** Log items the Worker committed (its observer awaits this). */
  commitItems(items: readonly Item[]): Promise<void>;
}

export class TurnRun {
  readonly id: string;
  readonly inputIds: readonly string[];
  readonly #options: TurnRunOptions;
  readonly #abort = new AbortController();
  #abortCause: AbortCause | null = null;
  #abortDetail = "";
  #llmTurn = 0;
  #usage: Usage = {};
  #done: Promise<TurnEnding> | null = null;

  constructor(options: TurnRunOptions) {
    this.id = options.id;
    this.inputIds = options.inputIds;
    this.#options = options;
  }

  get interruptRequested(): boolean {
    return this.#abortCause === "interrupted";
  }

  /** Settles when the turn has ended (never rejects). */
  get done(): Promise<unknown> {
    return (this.#done ?? Promise.resolve()).catch(() => undefined);
  }

  /** Stop the turn: the provider request and running tools are aborted. `detail` says why, for the error event. */
  abort(cause: AbortCause, detail = ""): void {
    if (this.#abortCause !== null) return;
    this.#abortCause = cause;
    this.#abortDetail = detail;
    this.#abort.abort(new Error(cause));
  }

  /** Run the turn; resolves with how it ended. */
  start(): Promise<TurnEnding> {
    this.#done ??= this.#run();
    return this.#done;
  }

  async #run(): Promise<TurnEnding> {
    const { services, session, state } = this.#options;
    let bound: BoundClient;
    try {
      bound = services.bindClient(session.providerProfile, session.model);
    } catch (error) {
      return this.#failed(state.turn_count, "provider_unconfigured", errorText(error));
    }
    let tools: ToolDefinition[];
    try {
      tools = await services.tools(session);
    } catch (error) {
      // E.g. a workspace inside the daemon's home, from a session created before that was refused.
      return this.#failed(state.turn_count, "workspace_refused", errorText(error));
    }
    // A monotonic clock: thinking durations must not jump with the wall clock.
    const worker = new Worker(bound.client, {
      observer: this.#observer(bound),
      clock: () => performance.now(),
    });
    worker.setSystemPrompt(state.system_prompt);
    worker.setRequestConfig(state.config);
    worker.setHistory(state.history);
    worker.setTurnCount(state.turn_count);
    for (const tool of tools) worker.registerTool(tool);
    const locked = worker.lock();
    try {
      // The actor committed this turn's inputs already; resume() runs the model on them.
      const result = await locked.resume({ signal: this.#abort.signal });
      return this.#finished(result, locked.turnCount, locked.lastRunInterrupted);
    } catch (error) {
      if (!(error instanceof WorkerError)) throw error;
      return this.#fromWorkerError(error, locked.turnCount);
    } finally {
      this.#options.feed.flushDeltas();
      if (!locked.isRunning) locked.unlock();
    }
  }

  #observer(bound: BoundClient) {
    const { feed } = this.#options;
    const runId = this.id;
    return {
      onTurnStart: (turn: number) => {
        this.#llmTurn = turn;
      },
      onEvent: (event: StreamEvent) => {
        switch (event.type) {
          case "block_delta":
            if (event.delta.type === "text") {
              feed.publishDelta("text", runId, `${runId}:${this.#llmTurn}`, event.delta.text);
            } else if (event.delta.type === "thinking") {
              feed.publishDelta("thinking", runId, `${runId}:${this.#llmTurn}:thinking`, event.delta.text);
            }
            return;
          case "retry":
            publishEvent(feed, "retry", {
              run_id: runId,
              attempt: event.retry.attempt,
              reason: event.retry.reason,
              delay_ms: event.retry.delay_ms,
            });
            return;
          case "block_start":
          case "block_stop":
          case "block_abort":
          case "usage":
          case "status":
          case "error":
          case "ping":
            return;
          default: {
            const unknownEvent: never = event;
            throw new Error(`unknown stream event ${JSON.stringify(unknownEvent)}`);
          }
        }
      },
      onTurnEnd: (_turn: number, usage: Usage) => {
        if (Object.keys(usage).length === 0) return;
        // Stored with the turn's end (one write per turn); streamed per request.
        this.#usage = addUsage(this.#usage, usage);
        publishEvent(feed, "usage", usageEventData(this.id, bound.model, usage));
      },
      onItemsCommitted: (items: readonly Item[]) => {
        feed.flushDeltas();
        return this.#options.commitItems(items);
      },
      onToolCallStart: (call: ToolCallItem) => {
        publishEvent(feed, "tool", toolEventData(call, null));
      },
      onToolCallEnd: (call: ToolCallItem, result: ToolResultItem) => {
        publishEvent(feed, "tool", toolEventData(call, result));
      },
    };
  }

  #finished(result: WorkerResult, turnCount: number, interrupted: boolean): TurnEnding {
    return { state: "completed", outcome: { type: result }, interrupted, turnCount, usage: this.#usage };
  }

  #fromWorkerError(error: WorkerError, turnCount: number): TurnEnding {
    if (this.#abortCause === "storage") {
      return this.#failed(turnCount, "storage_unavailable", storageUnavailableMessage(this.#abortDetail));
    }
    if (this.#abortCause === "corrupt") {
      return this.#failed(turnCount, "log_corrupt", "the session's log fails verification; the turn stopped");
    }
    if (error.kind === "cancelled" || this.#abortCause !== null) {
      const state: EndedTurnState = this.#abortCause === "interrupted" ? "interrupted" : "failed";
      const ending: TurnEnding = {
        state,
        outcome: { type: "error", message: error.message },
        interrupted: true,
        turnCount,
        usage: this.#usage,
      };
      if (state === "failed") ending.error = { code: "session_error", message: "the turn was stopped" };
      return ending;
    }
    const cause = error.cause;
    if (error.kind === "client" && cause instanceof LlmClientError) {
      // Most provider messages already start with the provider's label (and the HTTP status).
      const message = cause.message.startsWith(cause.provider)
        ? cause.message
        : `${cause.provider}: ${cause.message}`;
      return this.#failed(turnCount, providerErrorCode(cause), message);
    }
    return this.#failed(turnCount, "turn_failed", error.message);
  }

  #failed(turnCount: number, code: string, message: string): TurnEnding {
    return {
      state: "failed",
      outcome: { type: "error", message },
      interrupted: true,
      turnCount,
      usage: this.#usage,
      error: { code, message },
    };
  }
}

/** Two usage reports added field by field (a field absent from both stays absent). */
function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = { ...a };
  for (const key of Object.keys(b) as (keyof Usage)[]) {
    const value = b[key];
    if (value !== undefined) sum[key] = (sum[key] ?? 0) + value;
  }
  return sum;
}

/** The error event's text when a turn's log entries could not be written. */
export function storageUnavailableMessage(detail: string): string {
  return `the session's log could not be written (${detail}); the turn stopped and is recorded as failed once storage accepts writes again`;
}

function providerErrorCode(error: LlmClientError): string {
  return error.kind === "config" ? "provider_unconfigured" : "provider_error";
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `usage` event of one LLM request (spec §5). */
function usageEventData(runId: string, model: string, usage: Usage): SessionEventData["usage"] {
  const prompt = usage.input_tokens ?? 0;
  const completion = usage.output_tokens ?? 0;
  return {
    run_id: runId,
    model,
    prompt_tokens: prompt,
    cached_prompt_tokens: usage.cache_read_tokens ?? 0,
    completion_tokens: completion,
    total_tokens: usage.total_tokens ?? prompt + completion,
  };
}

/**
 * The `tool` event: a call starting (result null) or finished. Arguments or a result too large
 * for an event are cut to their start; `truncated` gives their full size, and the whole text is
 * in the call's and the result's history entries.
 */
function toolEventData(call: ToolCallItem, result: ToolResultItem | null): SessionEventData["tool"] {
  const args = boundText(call.arguments);
  const output = result === null ? null : boundText(result.output);
  const data: SessionEventData["tool"] = {
    tool_call_id: call.call_id,
    name: call.name,
    arguments: args.text,
    result: output === null ? null : output.text,
    is_error: result?.is_error === true,
  };
  if (args.cutFrom !== null || (output !== null && output.cutFrom !== null)) {
    data.truncated = {
      ...(args.cutFrom === null ? {} : { arguments: args.cutFrom }),
      ...(output === null || output.cutFrom === null ? {} : { result: output.cutFrom }),
    };
  }
  return data;
}
