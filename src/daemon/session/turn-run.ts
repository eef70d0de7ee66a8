/**
 * One turn of a session: the agent loop run over the session's own conversation (the replay of
 * its log, no copy) with its provider and tools, publishing live output to the feed.
 *
 * Boundary rule: a TurnRun never writes storage itself; the conversation it is given appends
 * each step through the actor's log writer, and the loop awaits that, so a tool call is durable
 * before its tool starts. It reports how the turn ended; it never throws for the model's or a
 * tool's failures, only for bugs.
 */
import type { EndedTurnState } from "../../api/inputs.js";
import type { SessionEventData } from "../../api/session-events.js";
import type { RestoredState } from "../../log/collect-state.js";
import type { Outcome } from "../../log/entries.js";
import type { StreamEvent } from "../../model/events.js";
import type { Item, ToolCallItem, ToolResultItem } from "../../model/items.js";
import { LlmClientError } from "../../model/llm-client.js";
import type { ToolDefinition, ToolMeta } from "../../model/tools.js";
import { addUsage, type Usage } from "../../model/usage.js";
import type { Conversation, WorkerError, WorkerResult } from "../../worker/index.js";
import { refusalCode } from "../../worker/refusal.js";
import { askUserTool } from "../approval/ask-user-tool.js";
import { boundText } from "../history/bounded-entry.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { DeltaEventType } from "../stream/encoded-event.js";
import type { SessionFeed } from "../stream/session-feed.js";
import type { ApprovalGate, TurnPolicy } from "./approval-gate.js";
import { resumeWithCompaction } from "./compacting-run.js";
import type { TurnCompaction } from "./compaction.js";
import { isRepairableRefusal, repairHint } from "./context-repair.js";
import { publishEvent } from "./publish-event.js";
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
  requestCount: number;
  /** Token usage of every model request of the turn, added up. */
  usage: Usage;
  error?: { code: string; message: string };
  /**
   * The model refused the turn: its entries leave the context of later requests (a refused turn
   * sent again is refused again). `detail`: the refusal's text.
   */
  refused?: { detail: string };
}

export interface TurnRunOptions {
  id: string;
  inputIds: readonly string[];
  services: SessionServices;
  session: SessionRow;
  /** The session's replay of its log: read as the run goes, grown only by `conversation`. */
  state: Readonly<RestoredState>;
  /** The session's history, appending through its log writer. */
  conversation: Conversation;
  feed: SessionFeed;
  /** The session's approvals: the turn's tool calls pass through it. */
  gate: ApprovalGate;
  /**
   * The turn starts before its start is durable (its start commit is written, its fsync not yet
   * done): what it would publish waits until `release()`, and nothing is published if it never
   * comes (the turn is then aborted). Without it, the turn publishes as it goes.
   */
  held?: boolean;
  /** A tool of the turn started, or the result of one was committed (`toolsUnsettled` changed). */
  onToolsChanged?: () => void;
  /** The session's compaction hooks for this turn's client (none: the turn never compacts). */
  compaction?: (
    bound: BoundClient,
    systemPrompt: string | null,
    tools: readonly ToolMeta[],
  ) => TurnCompaction;
}

export class TurnRun {
  readonly id: string;
  readonly inputIds: readonly string[];
  readonly #options: TurnRunOptions;
  readonly #abort = new AbortController();
  #abortCause: AbortCause | null = null;
  #abortDetail = "";
  #request = 0;
  #usage: Usage = {};
  /** Calls whose tool started and whose result is not committed yet. */
  readonly #unsettledCalls = new Set<string>();
  #done: Promise<TurnEnding> | null = null;
  #policy: TurnPolicy | null = null;
  /** Publications waiting for `release()`; null once released (or for a turn never held). */
  #held: (() => void)[] | null;
  /** Settles true on `release()`, false when the turn is aborted while still held. */
  readonly #released: Promise<boolean>;
  #settleRelease: (released: boolean) => void = () => undefined;

  constructor(options: TurnRunOptions) {
    this.id = options.id;
    this.inputIds = options.inputIds;
    this.#options = options;
    this.#held = options.held === true ? [] : null;
    this.#released = new Promise((resolve) => {
      this.#settleRelease = resolve;
    });
    if (this.#held === null) this.#settleRelease(true);
  }

  /** The turn's start is durable and announced: what it held is published, in order, and it publishes from now on. */
  release(): void {
    const held = this.#held;
    if (held === null) return;
    this.#held = null;
    this.#settleRelease(true);
    for (const publish of held) publish();
  }

  /** Publish a streamed delta now, or once released (no closure per delta on the common path). */
  #publishDelta(type: DeltaEventType, messageId: string, text: string): void {
    const { feed } = this.#options;
    if (this.#held === null) feed.publishDelta(type, this.id, messageId, text);
    else this.#held.push(() => feed.publishDelta(type, this.id, messageId, text));
  }

  /** Publish now, or once released for a turn still held. */
  #publish(publish: () => void): void {
    if (this.#held === null) publish();
    else this.#held.push(publish);
  }

  /** What the turn's calls are judged with (null until its tools are known). */
  get policy(): TurnPolicy | null {
    return this.#policy;
  }

  /**
   * How many of the turn's tools started and have no committed result yet: cutting the turn
   * then leaves their outcome unknown to whoever recovers it.
   */
  get toolsUnsettled(): number {
    return this.#unsettledCalls.size;
  }

  /** Items the turn just committed: the tool results among them settle their calls. */
  committed(items: readonly Item[]): void {
    let settled = false;
    for (const item of items) {
      if (item.type === "tool_result" && this.#unsettledCalls.delete(item.call_id)) settled = true;
    }
    if (settled) this.#options.onToolsChanged?.();
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
    // A turn stopped before its start was released never publishes anything.
    this.#settleRelease(false);
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
      bound = services.bindClient(session.providerProfile, session.model, state.config);
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
    // The workspace as the turn found it: taken once the model starts a tool call (while the
    // rest of its answer streams) and waited for before any tool may change a file. A turn
    // without tool calls cannot change the workspace and takes no checkpoint at all (a
    // checkpoint is several git processes, the dearest part of a plain turn otherwise).
    let checkpointed: Promise<void> | null = null;
    const checkpointBefore = (): Promise<void> => {
      checkpointed ??= services.checkpoint?.(session, this.id, "before") ?? Promise.resolve();
      return checkpointed;
    };
    let toolsCalled = false;
    const settings = services.turnSettings(session);
    const names = new Set<string>();
    this.#policy = {
      workspace: session.workspace,
      config: settings.configPolicy,
      profile: settings.profilePolicy,
      tools: names,
    };
    const policy = this.#policy;
    const { gate } = this.#options;
    try {
      // The turn's inputs are in the log already: resuming runs the model on them.
      // Made once here: the compaction's budget counts the real definitions the loop sends.
      const offered = [...tools, askUserTool()].map((definition) => definition());
      for (const made of offered) names.add(made.meta.name);
      const compaction = this.#afterRelease(
        this.#options.compaction?.(
          bound,
          state.system_prompt,
          offered.map((made) => made.meta),
        ),
      );
      const end = await resumeWithCompaction(compaction, {
        client: bound.client,
        conversation: this.#options.conversation,
        // Made once above, so the compaction's budget counts the same definitions the model gets.
        tools: offered.map((made) => () => made),
        systemPrompt: state.system_prompt,
        requestConfig: bound.requestConfig,
        requestCount: state.turn_count,
        // Counted from this turn's start: a turn takes at most this many tool rounds, if capped.
        maxRequests: settings.maxToolRounds === null ? null : state.turn_count + settings.maxToolRounds,
        interceptor: {
          beforeToolCall: async (call) => {
            await checkpointBefore();
            toolsCalled = true;
            return gate.beforeToolCall(call, policy, this.id);
          },
        },
        observer: this.#observer(bound, () => void checkpointBefore()),
        // A monotonic clock: thinking durations must not jump with the wall clock.
        clock: () => performance.now(),
        signal: this.#abort.signal,
      });
      if ("error" in end) return this.#fromWorkerError(end.error, end.requestCount);
      return this.#finished(end.result, end.requestCount, end.interrupted);
    } finally {
      this.#options.feed.flushDeltas();
      if (checkpointed !== null) {
        await checkpointed;
        // Without a tool run nothing of the turn's can have changed the workspace.
        await services.checkpoint?.(session, this.id, toolsCalled ? "after" : "after-unchanged");
      }
    }
  }

  /**
   * A compaction publishes as it goes, so a turn still held compacts only once released (a
   * request that needs none goes out at once).
   */
  #afterRelease(compaction: TurnCompaction | undefined): TurnCompaction | undefined {
    if (compaction === undefined || this.#held === null) return compaction;
    return {
      ...compaction,
      beforeRequest: async (items, signal) => {
        if (this.#held !== null && compaction.due() && !(await this.#released)) {
          throw new Error("the turn's start did not become durable");
        }
        return compaction.beforeRequest(items, signal);
      },
    };
  }

  /** The loop's observer; `toolCallStarts` is told when the model starts a tool call. */
  #observer(bound: BoundClient, toolCallStarts: () => void) {
    const { feed } = this.#options;
    const runId = this.id;
    // The message ids of the request's deltas, made once per request rather than per delta
    // (the merger compares them on every delta, and the same string compares at once).
    let textMessage = `${runId}:${this.#request}`;
    let thinkingMessage = `${textMessage}:thinking`;
    return {
      onRequestStart: (request: number) => {
        this.#request = request;
        textMessage = `${runId}:${request}`;
        thinkingMessage = `${textMessage}:thinking`;
      },
      onEvent: (event: StreamEvent) => {
        switch (event.type) {
          case "block_delta":
            if (event.delta.type === "text") this.#publishDelta("text", textMessage, event.delta.text);
            else if (event.delta.type === "thinking")
              this.#publishDelta("thinking", thinkingMessage, event.delta.text);
            return;
          case "retry": {
            const data: SessionEventData["retry"] = {
              run_id: runId,
              attempt: event.retry.attempt,
              reason: event.retry.reason,
              delay_ms: event.retry.delay_ms,
            };
            if (event.retry.adjusted !== undefined) data.adjusted = event.retry.adjusted;
            this.#publish(() => publishEvent(feed, "retry", data));
            return;
          }
          case "block_start":
            if (event.block.type === "tool_use") toolCallStarts();
            return;
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
      onRequestEnd: (_request: number, usage: Usage) => {
        if (Object.keys(usage).length === 0) return;
        // Stored with the turn's end (one write per turn); streamed per request.
        this.#usage = addUsage(this.#usage, usage);
        const data = usageEventData(this.id, bound.model, usage);
        this.#publish(() => publishEvent(feed, "usage", data));
      },
      onToolCallStart: (call: ToolCallItem) => {
        this.#unsettledCalls.add(call.call_id);
        this.#options.onToolsChanged?.();
        const data = toolEventData(call, null);
        this.#publish(() => publishEvent(feed, "tool", data));
      },
      onToolCallEnd: (call: ToolCallItem, result: ToolResultItem) => {
        const data = toolEventData(call, result);
        this.#publish(() => publishEvent(feed, "tool", data));
      },
    };
  }

  #finished(result: WorkerResult, requestCount: number, interrupted: boolean): TurnEnding {
    return { state: "completed", outcome: { type: result }, interrupted, requestCount, usage: this.#usage };
  }

  #fromWorkerError(error: WorkerError, requestCount: number): TurnEnding {
    if (this.#abortCause === "storage") {
      return storageFailedEnding(requestCount, this.#usage, this.#abortDetail);
    }
    if (this.#abortCause === "corrupt") {
      return this.#failed(
        requestCount,
        "log_corrupt",
        "the session's log fails verification; the turn stopped",
      );
    }
    if (error.kind === "cancelled" || this.#abortCause !== null) {
      const state: EndedTurnState = this.#abortCause === "interrupted" ? "interrupted" : "failed";
      const ending: TurnEnding = {
        state,
        outcome: { type: "error", message: error.message },
        interrupted: true,
        requestCount,
        usage: this.#usage,
      };
      if (state === "failed") ending.error = { code: "session_error", message: "the turn was stopped" };
      return ending;
    }
    const cause = error.cause;
    if (error.kind === "client" && cause instanceof LlmClientError && cause.code === refusalCode) {
      return {
        ...this.#failed(requestCount, "model_refused", cause.message),
        refused: { detail: cause.message },
      };
    }
    if (error.kind === "client" && cause instanceof LlmClientError) {
      // Most provider messages already start with the provider's label (and the HTTP status).
      const message =
        (cause.message.startsWith(cause.provider) ? cause.message : `${cause.provider}: ${cause.message}`) +
        // Only a history with more than the message being answered holds something to repair.
        (this.#options.state.history.length > 1 ? repairHint(cause, this.#options.session.id) : "");
      return this.#failed(requestCount, providerErrorCode(cause), message);
    }
    return this.#failed(requestCount, "turn_failed", error.message);
  }

  #failed(requestCount: number, code: string, message: string): TurnEnding {
    return {
      state: "failed",
      outcome: { type: "error", message },
      interrupted: true,
      requestCount,
      usage: this.#usage,
      error: { code, message },
    };
  }
}

/** How a turn ends when a step of it could not be written (`detail`: the storage's reason). */
export function storageFailedEnding(requestCount: number, usage: Usage, detail: string): TurnEnding {
  const message = storageUnavailableMessage(detail);
  return {
    state: "failed",
    outcome: { type: "error", message },
    interrupted: true,
    requestCount,
    usage,
    error: { code: "storage_unavailable", message },
  };
}

/** The error event's text when a turn's log entries could not be written. */
export function storageUnavailableMessage(detail: string): string {
  return `the session's log could not be written (${detail}); the turn stopped and is recorded as failed once storage accepts writes again`;
}

function providerErrorCode(error: LlmClientError): string {
  if (error.kind === "config") return "provider_unconfigured";
  return isRepairableRefusal(error) ? "provider_refused" : "provider_error";
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `usage` event of one LLM request. */
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
