/**
 * One turn of a session: the agent loop run over the session's own conversation (the replay of
 * its log, no copy) with its provider and tools, publishing live output to the session's clients.
 *
 * Boundary rule: a TurnRun never writes storage itself; the conversation it is given appends
 * each step through the session's log writer, and the loop awaits that, so a tool call is durable
 * before its tool starts. It reports how the turn ended (turn-ending.ts); it never throws for
 * the model's or a tool's failures, only for bugs.
 */
import type { SessionEventData } from "../../api/session-events.js";
import type { SessionUsage } from "../../api/session-snapshot.js";
import type { StreamEvent } from "../../model/events.js";
import type { Item, ToolCallItem, ToolResultItem } from "../../model/items.js";
import type { ToolDefinition } from "../../model/tools.js";
import { unreachable } from "../../model/unreachable.js";
import { addUsage, type Usage } from "../../model/usage.js";
import { errorMessage } from "../../worker/errors.js";
import type { ConversationRunEnd } from "../../worker/index.js";
import type { TurnPolicy } from "../approval/approval-gate.js";
import { resumeWithCompaction } from "../compaction/compacting-run.js";
import type { TurnCompaction } from "../compaction/compaction.js";
import type { SessionPort } from "../session/session-port.js";
import type { BoundClient } from "../session/session-services.js";
import { usageEventData } from "../session/usage-event.js";
import { addSessionUsage, noUsage } from "../session/usage-roll-up.js";
import type { DeltaEventType } from "../stream/encoded-event.js";
import {
  type AbortCause,
  budgetExhaustedEnding,
  completedEnding,
  endingOfError,
  failedEnding,
  type TurnEnding,
} from "./turn-ending.js";
import { toolEventData } from "./turn-events.js";
import type { TurnRunOptions } from "./turn-run-options.js";
import { turnTools } from "./turn-tools.js";
import { tracedCompaction, tracedDecision } from "./turn-tracing.js";

/** What a turn runs with once its client and tools are known. */
interface Prepared {
  bound: BoundClient;
  /** The tool definitions the model is offered (made once: the compaction's budget counts them). */
  offered: ReturnType<ToolDefinition>[];
  maxToolRounds: number | null;
}

export class TurnRun {
  readonly id: string;
  readonly inputIds: readonly string[];
  readonly #port: SessionPort;
  readonly #options: TurnRunOptions;
  readonly #abort = new AbortController();
  #abortCause: AbortCause | null = null;
  #abortDetail = "";
  #request = 0;
  /** When the model request in flight went out (`performance.now()`); null between requests. */
  #requestBegan: number | null = null;
  #usage: Usage = {};
  /** The usage of the `usage` events published so far: a snapshot's stored usage lacks it until the end commits. */
  #streamedUsage: SessionUsage = noUsage;
  /** Calls whose tool started and whose result is not committed yet. */
  readonly #unsettledCalls = new Set<string>();
  #done: Promise<TurnEnding> | null = null;
  #policy: TurnPolicy | null = null;
  /** Publications waiting for `release()`; null once released (or for a turn never held). */
  #held: (() => void)[] | null;
  /** Settles true on `release()`, false when the turn is aborted while still held. */
  readonly #released: Promise<boolean>;
  #settleRelease: (released: boolean) => void = () => undefined;
  /** The workspace as the turn found it: taken once the model starts a tool call, null before. */
  #checkpointed: Promise<void> | null = null;
  #toolsCalled = false;

  /** A turn of the session behind `port` (not started: see `start`). */
  constructor(port: SessionPort, options: TurnRunOptions) {
    this.id = options.id;
    this.inputIds = options.inputIds;
    this.#port = port;
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
    const port = this.#port;
    if (this.#held === null) port.publishDelta(type, this.id, messageId, text);
    else this.#held.push(() => port.publishDelta(type, this.id, messageId, text));
  }

  /** Publish now, or once released for a turn still held. */
  #publish(publish: () => void): void {
    if (this.#held === null) publish();
    else this.#held.push(publish);
  }

  /** The usage its clients have been sent so far (`usage` events), which its end stores. */
  get streamedUsage(): SessionUsage {
    return this.#streamedUsage;
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

  /** The turn's signal: aborted once it is stopped from outside. */
  get signal(): AbortSignal {
    return this.#abort.signal;
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
    const prepared = await this.#prepare();
    if ("state" in prepared) return prepared;
    try {
      const end = await this.#loop(prepared);
      const refusal = this.#options.budget?.refusal;
      if (refusal != null) return budgetExhaustedEnding(end.requestCount, this.#usage, refusal.message);
      if ("error" in end) {
        const abort =
          this.#abortCause === null ? null : { cause: this.#abortCause, detail: this.#abortDetail };
        const session = { id: this.#options.session.id, historyItems: this.#port.log.state.history.length };
        return endingOfError(end.error, end.requestCount, this.#usage, abort, session);
      }
      return completedEnding(end.result, end.requestCount, end.interrupted, this.#usage);
    } finally {
      // A request still in flight ended with the run: it failed, or was cut.
      this.#requestEnded(prepared.bound, "error");
      this.#port.flushDeltas();
      if (this.#checkpointed !== null) {
        await this.#checkpointed;
        // Without a tool run nothing of the turn's can have changed the workspace.
        await this.#options.services.checkpoint?.(
          this.#options.session,
          this.id,
          this.#toolsCalled ? "after" : "after-unchanged",
        );
      }
    }
  }

  /** The turn's client, tools and policy; how it ended when there are none. */
  async #prepare(): Promise<Prepared | TurnEnding> {
    const { services, session } = this.#options;
    const { state } = this.#port.log;
    let bound: BoundClient;
    try {
      bound = services.bindClient(session.providerProfile, session.model, state.config);
    } catch (error) {
      return failedEnding(state.request_count, this.#usage, "provider_unconfigured", errorMessage(error));
    }
    let tools: ToolDefinition[];
    try {
      tools = await turnTools(services, session, this.#port, (publish) => this.#publish(publish));
    } catch (error) {
      // E.g. a workspace inside the daemon's home, from a session created before that was refused.
      return failedEnding(state.request_count, this.#usage, "workspace_refused", errorMessage(error));
    }
    this.#options.budget?.bind(bound.profileName, bound.limits.prices);
    const settings = services.turnSettings(session);
    const offered = tools.map((definition) => definition());
    this.#policy = {
      workspace: session.workspace,
      config: settings.configPolicy,
      profile: settings.profilePolicy,
      tools: new Set(offered.map((made) => made.meta.name)),
    };
    return { bound, offered, maxToolRounds: settings.maxToolRounds };
  }

  /** The agent loop over the session's conversation; the turn's inputs are in the log already. */
  #loop({ bound, offered, maxToolRounds }: Prepared): Promise<ConversationRunEnd> {
    const { state } = this.#port.log;
    const { gate } = this.#options;
    const policy = this.#policy!;
    const { trace, budget } = this.#options;
    const compaction = this.#afterRelease(
      tracedCompaction(
        this.#options.compaction?.(
          bound,
          state.system_prompt,
          offered.map((made) => made.meta),
        ),
        trace,
      ),
    );
    return resumeWithCompaction(compaction, {
      client: bound.client,
      conversation: this.#options.conversation,
      // Made once, so the compaction's budget counts the same definitions the model gets.
      tools: offered.map((made) => () => made),
      systemPrompt: state.system_prompt,
      requestConfig: bound.requestConfig,
      requestCount: state.request_count,
      // Counted from this turn's start: a turn takes at most this many tool rounds, if capped.
      maxRequests: maxToolRounds === null ? null : state.request_count + maxToolRounds,
      interceptor: {
        ...(budget === undefined ? {} : { inspectRequest: () => budget.beforeRequest() }),
        beforeToolCall: async (call) => {
          await this.#checkpointBefore();
          this.#toolsCalled = true;
          if (trace === undefined) return gate.beforeToolCall(call, policy, this.id, this.#abort.signal);
          return tracedDecision(trace, call, () =>
            gate.beforeToolCall(call, policy, this.id, this.#abort.signal),
          );
        },
      },
      observer: this.#observer(bound, () => void this.#checkpointBefore()),
      // A monotonic clock: thinking durations must not jump with the wall clock.
      clock: () => performance.now(),
      signal: this.#abort.signal,
    });
  }

  /**
   * The workspace as the turn found it: taken once the model starts a tool call (while the rest
   * of its answer streams) and waited for before any tool may change a file. A turn without
   * tool calls cannot change the workspace and takes no checkpoint at all (a checkpoint is
   * several git processes, the dearest part of a plain turn otherwise).
   */
  #checkpointBefore(): Promise<void> {
    const { services, session } = this.#options;
    this.#checkpointed ??= services.checkpoint?.(session, this.id, "before") ?? Promise.resolve();
    return this.#checkpointed;
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

  /** The model request in flight (if any) ended: the daemon's metrics hear how long it took. */
  #requestEnded(bound: BoundClient, outcome: "ok" | "error"): void {
    const began = this.#requestBegan;
    if (began === null) return;
    this.#requestBegan = null;
    const seconds = (performance.now() - began) / 1000;
    this.#options.services.meter?.modelRequest(bound.profileName, bound.model, seconds, outcome);
  }

  /** The loop's observer; `toolCallStarts` is told when the model starts a tool call. */
  #observer(bound: BoundClient, toolCallStarts: () => void) {
    const port = this.#port;
    const turnId = this.id;
    // The message ids of the request's deltas, made once per request rather than per delta
    // (the merger compares them on every delta, and the same string compares at once).
    let textMessage = `${turnId}:${this.#request}`;
    let thinkingMessage = `${textMessage}:thinking`;
    const { trace } = this.#options;
    return {
      onRequestStart: (request: number) => {
        trace?.requestStarted(request, bound.client.provider, bound.model);
        this.#requestBegan = performance.now();
        this.#request = request;
        textMessage = `${turnId}:${request}`;
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
              run_id: turnId,
              attempt: event.retry.attempt,
              reason: event.retry.reason,
              delay_ms: event.retry.delay_ms,
            };
            if (event.retry.adjusted !== undefined) data.adjusted = event.retry.adjusted;
            this.#publish(() => port.publish("retry", data));
            return;
          }
          case "block_start":
            if (event.block.type === "tool_use") toolCallStarts();
            return;
          case "block_stop":
          case "status":
            if (trace !== undefined && event.stop_reason !== undefined)
              trace.requestStopped(event.stop_reason);
            return;
          case "block_abort":
          case "usage":
          case "error":
          case "ping":
            return;
          default:
            unreachable(event, "unknown stream event");
        }
      },
      onRequestEnd: (_request: number, usage: Usage) => {
        trace?.requestEnded(usage);
        this.#requestEnded(bound, "ok");
        if (Object.keys(usage).length === 0) return;
        // Stored with the turn's end (one write per turn); streamed per request.
        this.#usage = addUsage(this.#usage, usage);
        const data = usageEventData(this.id, bound.model, usage);
        this.#publish(() => {
          this.#streamedUsage = addSessionUsage(this.#streamedUsage, data);
          port.publish("usage", data);
        });
      },
      onToolCallStart: (call: ToolCallItem) => {
        this.#unsettledCalls.add(call.call_id);
        this.#options.onToolsChanged?.();
        const data = toolEventData(call, null);
        this.#publish(() => port.publish("tool", data));
      },
      onToolCallEnd: (call: ToolCallItem, result: ToolResultItem) => {
        trace?.toolEnded(call.call_id, { isError: result.is_error === true });
        const data = toolEventData(call, result);
        this.#publish(() => port.publish("tool", data));
      },
    };
  }
}
