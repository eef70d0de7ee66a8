/**
 * One run or resume of the agent loop (a Worker's, or an owner's conversation): requests to the
 * model, each response committed, its tool calls run, until the model answers without tool calls.
 *
 * Boundary rule: the only code that grows the conversation during a run, and only through
 * `commit` (the conversation's `append`). A run owns an AbortController: `cancel()` (or the
 * caller's signal) aborts it, which aborts the LLM stream (the signal given to `client.stream`)
 * and running tools (their ToolContext.signal); every await on outside code races it, so a
 * cancelled run rejects at once even when the stream or a tool ignores the signal. When a run
 * fails for any reason, the controller is aborted too, so nothing it started keeps working.
 *
 * Decisions worth knowing:
 * - A response is collected by a fresh ResponseCollector and committed only once its stream has
 *   ended cleanly: nothing of a failed or cancelled response reaches history. A cancelled one's
 *   streamed text and thinking ride on the cancellation error (`WorkerError.partial`), for an
 *   owner that keeps what its user saw (the daemon logs it marked interrupted).
 * - `run(input)` first answers tool calls left pending by an interrupted run (is_error "not run"
 *   results, committed before the user message): the new input replaces whatever was awaited
 *   (typically a pause for approval), and the next request stays valid for every provider.
 *   `resume()` instead executes pending calls, through `beforeToolCall` again.
 * - `requestCount` grows when a response has been committed.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { StreamEvent } from "../model/events.js";
import { type Item, type ToolCallItem, toolResult, userMessage } from "../model/items.js";
import { LlmClientError, type LlmRequest } from "../model/llm-client.js";
import { openToolCalls } from "../model/open-tool-calls.js";
import { mergeUsage, type Usage } from "../model/usage.js";
import { assistantItems } from "./assistant-items.js";
import { CancelRace } from "./cancel-race.js";
import { abortReasonText } from "./cancellation.js";
import type { AppendHint } from "./conversation.js";
import { errorMessage, WorkerError } from "./errors.js";
import { type Awaitable, type BeforeRequestAction, type Interceptor, unknownAction } from "./interceptor.js";
import { interruptedAnswer } from "./interrupted-answer.js";
import type { CommitKind, WorkerObserver } from "./observer.js";
import { refusalError } from "./refusal.js";
import { type CollectedResponse, ResponseCollector } from "./response-collector.js";
import { leavesRunInterrupted, type WorkerResult } from "./result.js";
import { runToolBatch, type ToolBatchOptions, type ToolBatchRun } from "./tool-batch.js";
import type { ToolRegistry } from "./tool-registry.js";
import { withTransientRetry } from "./transient-retry.js";
import type { WorkerCore } from "./worker-core.js";

/** The result given to a call an interrupted run left pending when a new input arrives instead. */
export const NOT_RUN_OUTPUT =
  "Tool call not run: the previous run was interrupted and a new user message arrived instead.";

export class WorkerRun implements ToolBatchRun {
  private readonly core: WorkerCore;
  private readonly controller = new AbortController();
  private cancelReason: string | undefined;
  private readonly detachExternal: () => void;
  private readonly race = new CancelRace(this.controller.signal, () => this.cancellation());

  constructor(core: WorkerCore, external?: AbortSignal) {
    this.core = core;
    if (external === undefined) {
      this.detachExternal = () => undefined;
    } else if (external.aborted) {
      this.cancel(abortReasonText(external.reason));
      this.detachExternal = () => undefined;
    } else {
      const onAbort = (): void => this.cancel(abortReasonText(external.reason));
      external.addEventListener("abort", onAbort, { once: true });
      this.detachExternal = () => external.removeEventListener("abort", onAbort);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get tools(): ToolRegistry {
    return this.core.tools;
  }

  get interceptor(): Interceptor {
    return this.core.interceptor;
  }

  get observer(): WorkerObserver {
    return this.core.observer;
  }

  /** Cancels this run; a second call (or a call after the run failed) does nothing. */
  cancel(reason?: string): void {
    if (this.controller.signal.aborted) return;
    this.cancelReason = reason;
    this.controller.abort(WorkerError.cancelled(reason));
  }

  /** `run(input)`: prompt hook, pending calls answered, user item committed, then the request loop. */
  start(input: string): Promise<WorkerResult> {
    return this.finalize(async () => {
      this.throwIfCancelled();
      let item: Item = userMessage(input);
      const hook = this.interceptor.onPromptSubmit;
      if (hook !== undefined) {
        const submitted = structuredClone(item);
        const action = await this.callHook("onPromptSubmit", () => hook.call(this.interceptor, submitted));
        switch (action.action) {
          case "continue":
            item = action.item ?? item;
            break;
          case "cancel":
            throw WorkerError.aborted(action.reason);
          default:
            unknownAction("onPromptSubmit", action);
        }
      }
      const pending = openToolCalls(this.core.conversation.items);
      await this.commit(
        pending.map((call) => toolResult(call.call_id, NOT_RUN_OUTPUT, true)),
        "tool_results",
      );
      await this.commit([item], "user_input");
      return this.requestLoop();
    });
  }

  /** `resume()`: executes pending tool calls, then the request loop. */
  resume(): Promise<WorkerResult> {
    return this.finalize(async () => {
      this.throwIfCancelled();
      const pending = openToolCalls(this.core.conversation.items);
      if (pending.length > 0 && (await this.runTools(pending)) === "paused") return "paused";
      return this.requestLoop();
    });
  }

  /** `work`, or this run's cancellation error as soon as the run is cancelled. */
  untilCancelled<T>(work: Promise<T>): Promise<T> {
    return this.race.until(work);
  }

  async callHook<T>(hook: keyof Interceptor, invoke: () => Awaitable<T>): Promise<T> {
    try {
      // Through a promise so a hook that throws synchronously is handled like one that rejects.
      return await this.untilCancelled(Promise.resolve().then(invoke));
    } catch (error) {
      if (error instanceof WorkerError) throw error;
      throw WorkerError.aborted(`interceptor ${hook} failed: ${errorMessage(error)}`, error);
    }
  }

  notify(callback: keyof WorkerObserver, invoke: () => void): void {
    try {
      invoke();
    } catch (error) {
      throw WorkerError.aborted(`observer ${callback} failed: ${errorMessage(error)}`, error);
    }
  }

  private async finalize(body: () => Promise<WorkerResult>): Promise<WorkerResult> {
    this.core.lastRunInterrupted = false;
    try {
      const result = await body();
      this.core.lastRunInterrupted = leavesRunInterrupted(result);
      return result;
    } catch (error) {
      this.core.lastRunInterrupted = true;
      if (!this.controller.signal.aborted) this.controller.abort(error);
      await this.reportAbort(error);
      throw error;
    } finally {
      this.detachExternal();
    }
  }

  /** Tells `onAbort`; its own failure must not replace the run's error, so it is dropped. */
  private async reportAbort(error: unknown): Promise<void> {
    const hook = this.interceptor.onAbort;
    if (hook === undefined) return;
    const reason =
      error instanceof WorkerError
        ? error.kind === "aborted"
          ? (error.reason ?? error.message)
          : error.message
        : errorMessage(error);
    try {
      await hook.call(this.interceptor, reason);
    } catch {
      // Deliberately ignored (see above).
    }
  }

  private async requestLoop(): Promise<WorkerResult> {
    for (;;) {
      this.throwIfCancelled();
      const index = this.core.requestCount;
      this.notify("onRequestStart", () => this.observer.onRequestStart?.(index));

      let chosen: readonly Item[] | undefined;
      const inspect = this.interceptor.inspectRequest;
      if (inspect !== undefined) {
        const history: readonly Item[] = this.core.conversation.items;
        const action = await this.callHook("inspectRequest", () => inspect.call(this.interceptor, history));
        const decided = this.requestDecision("inspectRequest", action, index);
        if (decided === "yielded") return "yielded";
        chosen = decided;
      }
      let items: Item[];
      const before = this.interceptor.beforeRequest;
      if (before === undefined) {
        items = [...(chosen ?? this.core.conversation.items)];
      } else {
        // A deep copy: edits (even in place) apply to this request only.
        const copy = structuredClone(chosen ?? this.core.conversation.items) as Item[];
        const action = await this.callHook("beforeRequest", () => before.call(this.interceptor, copy));
        const decided = this.requestDecision("beforeRequest", action, index);
        if (decided === "yielded") return "yielded";
        items = decided === undefined ? copy : [...decided];
      }

      const request: LlmRequest = {
        items,
        tools: [...this.core.tools.metas()],
        config: structuredClone(this.core.requestConfig),
      };
      if (this.core.systemPrompt !== null) request.system_prompt = this.core.systemPrompt;
      const { response, usage } = await withTransientRetry(() => this.streamResponse(request), {
        notice: (event) => this.notify("onEvent", () => this.observer.onEvent?.(event)),
        wait: (ms) => this.untilCancelled(sleep(ms)),
      });

      // A refused answer is not kept: resent, it would have the next request refused as well.
      if (response.stopReason === "refusal") throw refusalError(this.core.client.provider, response);

      // Without tool calls and without an onRunEnd hook, this answer is the run's last step.
      const onRunEnd = this.interceptor.onRunEnd;
      const final = response.toolCalls.length === 0 && onRunEnd === undefined;
      await this.commit(assistantItems(response), "assistant", { final, usage });
      this.core.requestCount += 1;
      this.notify("onRequestEnd", () => this.observer.onRequestEnd?.(index, usage));

      if (response.toolCalls.length === 0) {
        if (onRunEnd === undefined) return "finished";
        const history: readonly Item[] = this.core.conversation.items;
        const action = await this.callHook("onRunEnd", () => onRunEnd.call(this.interceptor, history));
        switch (action.action) {
          case "finish":
            return "finished";
          case "continue":
            await this.commit(action.messages, "injected");
            continue;
          case "pause":
            return "paused";
          default:
            return unknownAction("onRunEnd", action);
        }
      }

      const cutOff = response.stopReason === "max_tokens";
      if ((await this.runTools(response.toolCalls, { cutOff })) === "paused") return "paused";
      const maxRequests = this.core.maxRequests;
      if (maxRequests !== null && this.core.requestCount >= maxRequests) return "limit_reached";
    }
  }

  /** What a request hook decided: the items to send (undefined: unchanged), or "yielded"; throws for cancel. */
  private requestDecision(
    hook: "inspectRequest" | "beforeRequest",
    action: BeforeRequestAction,
    index: number,
  ): readonly Item[] | undefined | "yielded" {
    switch (action.action) {
      case "continue":
        return action.items;
      case "cancel":
        this.notify("onRequestEnd", () => this.observer.onRequestEnd?.(index, {}));
        throw WorkerError.aborted(action.reason);
      case "yield":
        this.notify("onRequestEnd", () => this.observer.onRequestEnd?.(index, {}));
        return "yielded";
      default:
        return unknownAction(hook, action);
    }
  }

  /** Streams one response to its end; throws (committing nothing) on an error, an error event or a cancel. */
  private async streamResponse(request: LlmRequest): Promise<{ response: CollectedResponse; usage: Usage }> {
    this.throwIfCancelled();
    const collector = new ResponseCollector(this.core.clock);
    const usage: { total: Usage } = { total: {} };
    const client = this.core.client;
    let iterator: AsyncIterator<StreamEvent | readonly StreamEvent[]> | undefined;
    let ended = false;
    try {
      // A client that hands over whole batches (one per network read) costs one await per batch.
      const batched = client.streamBatches !== undefined;
      iterator = (
        batched ? client.streamBatches!(request, this.signal) : client.stream(request, this.signal)
      )[Symbol.asyncIterator]();
      for (;;) {
        const step = await this.untilCancelled(iterator.next());
        if (step.done === true) {
          ended = true;
          break;
        }
        if (!batched) {
          this.acceptEvent(step.value as StreamEvent, collector, usage);
          continue;
        }
        for (const event of step.value as readonly StreamEvent[]) {
          // What a one-by-one stream's next step would do: a cancel stops the batch here.
          this.throwIfCancelled();
          this.acceptEvent(event, collector, usage);
        }
      }
    } catch (error) {
      const failure = this.streamFailure(error);
      if (failure.kind !== "cancelled") throw failure;
      throw WorkerError.cancelledMidAnswer(failure.reason, interruptedAnswer(collector.streamedSoFar()));
    } finally {
      // Let an abandoned stream clean up, without waiting for a stream that ignores its signal.
      if (!ended && iterator?.return !== undefined) {
        const stop = iterator.return.bind(iterator);
        void Promise.resolve()
          .then(() => stop())
          .catch(() => undefined);
      }
    }
    return { response: collector.finish(), usage: usage.total };
  }

  /** One stream event: told to the observer, then counted (usage), thrown (error) or collected. */
  private acceptEvent(event: StreamEvent, collector: ResponseCollector, usage: { total: Usage }): void {
    this.notify("onEvent", () => this.observer.onEvent?.(event));
    if (event.type === "usage") {
      usage.total = mergeUsage(usage.total, event.usage);
      // Carries no content, but may be the response's first event (thinking is timed from it).
      collector.accept(event);
    } else if (event.type === "error") {
      const details = event.code === undefined ? {} : { code: event.code };
      throw WorkerError.client(new LlmClientError("api", this.core.client.provider, event.message, details));
    } else {
      collector.accept(event);
    }
  }

  private streamFailure(error: unknown): WorkerError {
    if (error instanceof WorkerError) return error;
    if (this.signal.aborted) return this.cancellation();
    if (error instanceof LlmClientError) return WorkerError.client(error);
    // A client broke its contract (threw something else); treat it as a broken connection.
    return WorkerError.client(
      new LlmClientError("network", this.core.client.provider, errorMessage(error), { cause: error }),
    );
  }

  private async runTools(
    calls: readonly ToolCallItem[],
    options: ToolBatchOptions = {},
  ): Promise<"paused" | "done"> {
    const outcome = await runToolBatch(calls, this, options);
    if (outcome.kind === "paused") return "paused";
    await this.commit(outcome.results, "tool_results");
    return "done";
  }

  /** Appends items to the conversation (which persists them first, when its owner does). */
  private async commit(items: readonly Item[], kind: CommitKind, hint?: AppendHint): Promise<void> {
    if (items.length === 0) return;
    try {
      await this.core.conversation.append(items, kind, hint);
    } catch (error) {
      if (error instanceof WorkerError) throw error;
      throw WorkerError.aborted(`the conversation refused a step: ${errorMessage(error)}`, error);
    }
  }

  private throwIfCancelled(): void {
    if (this.signal.aborted) throw this.cancellation();
  }

  private cancellation(): WorkerError {
    return WorkerError.cancelled(this.cancelReason);
  }
}
