/**
 * A session's context compaction: when (before a request that would pass the fill threshold or
 * leave no room for the output, after a provider's "context too long", on a client's request),
 * how (plan the cut, have the session's model summarize the rest, append one `compaction`
 * entry) and what clients hear (`compaction_started`, `compaction_completed`,
 * `compaction_failed`; the snapshot's `context`).
 *
 * Boundary rule: the compaction is one log append, made through the session's mailbox after the
 * summary is in hand, so a crash or a failure at any earlier point leaves the session exactly as
 * it was. A compaction that would not make the context smaller is refused, never written. Only
 * one compaction runs at a time per session.
 */
import type { SessionContext } from "../../api/session-snapshot.js";
import { type CompactionPlan, planCompaction } from "../../log/compaction-plan.js";
import { compactionSummaryItem } from "../../log/compaction-summary.js";
import type { CompactionTrigger, LogEntry, RequestUsage } from "../../log/entries.js";
import type { Item } from "../../model/items.js";
import { LlmClientError } from "../../model/llm-client.js";
import type { ToolMeta } from "../../model/tools.js";
import type { Usage } from "../../model/usage.js";
import { isContextOverflow, reportedContextWindow } from "../../providers/context-overflow.js";
import type { ModelLimits } from "../../providers/model-limits.js";
import { hasUsage } from "../../providers/usage-report.js";
import { requestUsageOf } from "../budget/request-usage.js";
import { boundText } from "../history/bounded-entry.js";
import { turnLogFields } from "../session/log-fields.js";
import type { SessionPort } from "../session/session-port.js";
import type { BoundClient, SessionServices } from "../session/session-services.js";
import { usageEventData } from "../session/usage-event.js";
import { usageCost } from "../session/usage-roll-up.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { ContextAccount } from "./context-accounting.js";
import { summarizeItems } from "./context-summary.js";

/** Whole turns a compaction keeps verbatim when they fit. */
const keptTurns = 2;
/** Share of the usable prompt the kept turns may take. */
const keptShare = 0.35;
/** Share of the usable prompt a compaction before a request must at least summarize. */
const minimumGain = 0.1;
/** Share of the usable prompt the summary may take. */
const summaryShare = 0.15;

/** The limits and prices of the model a session's settings resolve to (null: no provider configured). */
export type LimitsOf = SessionServices["limitsOf"];

/** The record a compaction's summary requests are logged with (null: the provider reported no usage). */
export type UsageRecorder = (usage: Usage) => RequestUsage | null;

/** How a turn's compactions make their summary requests: as the turn's own requests are. */
export interface TurnRequests {
  /** The record of what they used. */
  record: UsageRecorder;
  /** Whether the budgets let a request go out now (false: no compaction, and the turn stops). */
  allowed(): Promise<boolean>;
}

/** The record of requests to `bound`'s profile outside any turn (a manual compaction: no schedule). */
function recorderOf(bound: BoundClient): UsageRecorder {
  return (usage) => requestUsageOf(usage, bound.profileName, bound.limits.prices, null);
}

/** The compaction hooks of one turn (see compacting-run.ts). */
export interface TurnCompaction {
  /** Before each request: compact if the context is past the threshold; the items to send then, else undefined. */
  beforeRequest(items: readonly Item[], signal: AbortSignal): Promise<Item[] | undefined>;
  /** Whether `beforeRequest` would compact if called now. */
  due(): boolean;
  /** The provider's usage of the response just appended. */
  observeUsage(usage: Usage): void;
  /** Whether a run's failure is the provider's "context too long". */
  isOverflow(error: unknown): boolean;
  /** Compact after a "context too long" (`error`); true when a compaction was written. */
  compactAfterOverflow(signal: AbortSignal, error: unknown): Promise<boolean>;
}

/** What a started manual compaction planned. */
export interface ManualCompaction {
  beforeTokens: number;
  keptTokens: number;
  firstKeptPosition: number;
}

/** How large the prompt may get for `bound` and how the plan and the summary share it. */
function budgets(limits: ModelLimits, maxTokens: number | undefined, overhead: number) {
  const reserve = Math.min(maxTokens ?? limits.maxOutputTokens, Math.floor(limits.contextWindow / 2));
  const usable = Math.max(
    256,
    Math.min(limits.contextWindow * limits.compactThreshold, limits.contextWindow - reserve),
  );
  // What the messages may fill: the system prompt and the tool definitions come first, and with
  // many tools in a small window they take most of it.
  const forMessages = Math.max(0, usable - overhead);
  return {
    /** Compact before a request whose prompt reaches this. */
    trigger: usable,
    keepTokens: Math.floor(forMessages * keptShare),
    summaryTokens: Math.max(
      128,
      Math.min(16_384, limits.maxOutputTokens, Math.floor(forMessages * summaryShare)),
    ),
    // The summary request itself must leave room for its answer.
    pieceTokens: Math.max(512, Math.floor((limits.contextWindow - reserve) * 0.6)),
  };
}

export class SessionCompactor {
  readonly account = new ContextAccount();
  readonly #port: SessionPort;
  readonly #limitsOf: LimitsOf;
  #running: AbortController | null = null;
  #lastError: string | null = null;

  constructor(port: SessionPort, limitsOf: LimitsOf) {
    this.#port = port;
    this.#limitsOf = limitsOf;
  }

  /** Whether a compaction is running. */
  get running(): boolean {
    return this.#running !== null;
  }

  /** Stop a running compaction (the actor stops); nothing of it is written. */
  abort(): void {
    this.#running?.abort(new Error("the session stopped"));
  }

  /** The hooks one turn runs with, for the client it bound (`requests`: how the turn's requests are checked and counted). */
  forTurn(
    turnId: string,
    bound: BoundClient,
    systemPrompt: string | null,
    tools: readonly ToolMeta[],
    requests: TurnRequests = { record: recorderOf(bound), allowed: async () => true },
  ): TurnCompaction {
    const { record } = requests;
    // A failed compaction before a request is not tried again before the turn's next ones: its
    // summary requests were spent (and, with nothing logged, no budget counts them), and what
    // made it fail is likely still there. A "context too long" still compacts.
    let autoFailed = false;
    this.account.setOverhead(systemPrompt, tools);
    const limits = budgets(bound.limits, bound.requestConfig.max_tokens, this.account.overhead);
    return {
      due: () => this.account.size(this.#port.log.state).tokens >= limits.trigger && !this.running,
      beforeRequest: async (items, signal) => {
        const size = this.account.size(this.#port.log.state);
        let sent: Item[] | undefined;
        if (size.tokens >= limits.trigger && !this.running && !autoFailed && (await requests.allowed())) {
          const outcome = await this.#compactQuietly("auto", bound, turnId, signal, record);
          if (outcome === "written") sent = [...this.#port.log.state.history];
          autoFailed = outcome === "failed";
        }
        this.account.sending(sent ?? items);
        return sent;
      },
      observeUsage: (usage) => this.account.observe(this.#port.log.state, usage),
      isOverflow: (error) => error instanceof LlmClientError && isContextOverflow(error),
      compactAfterOverflow: async (signal, error) =>
        (await requests.allowed()) &&
        (await this.#compactQuietly(
          "overflow",
          this.#withObservedWindow(bound, error),
          turnId,
          signal,
          record,
        )) === "written",
    };
  }

  /**
   * Plan a compaction now and start it in the background (the session is idle: the caller
   * checked). Throws `NothingToCompactError` (via `plan`) when nothing would be summarized.
   * `done` is called once it has ended, whatever the outcome.
   */
  startManual(bound: BoundClient, plan: CompactionPlan, done: () => void): ManualCompaction {
    const controller = new AbortController();
    this.#running = controller;
    const before = this.account.size(this.#port.log.state).tokens;
    void this.#run("manual", bound, null, plan, before, controller.signal, recorderOf(bound))
      .catch((error: unknown) => this.#failed("manual", null, error))
      .finally(() => {
        this.#running = null;
        done();
      });
    return { beforeTokens: before, keptTokens: plan.keptTokens, firstKeptPosition: plan.firstKeptPosition };
  }

  /** The cut a compaction would make now for `bound`'s model, or null when nothing would be summarized. */
  plan(bound: BoundClient): CompactionPlan | null {
    const { log } = this.#port;
    return planCompaction({
      items: log.state.history,
      positions: log.state.history_positions,
      nextPosition: log.position + 1,
      keepTurns: keptTurns,
      keepTokens: budgets(bound.limits, bound.requestConfig.max_tokens, this.account.overhead).keepTokens,
      estimate: this.account.itemTokens,
    });
  }

  /** The snapshot's `context` for the session's row (null when no provider is configured). */
  context(row: SessionRow): SessionContext | null {
    const limits = this.#limitsOf(row.providerProfile, row.model);
    if (limits === null) return null;
    const state = this.#port.log.state;
    const size = this.account.size(state);
    const last = state.last_compaction;
    return {
      used_tokens: size.tokens,
      estimated: size.estimated,
      context_window: limits.contextWindow,
      max_output_tokens: limits.maxOutputTokens,
      fill: Math.round((size.tokens / limits.contextWindow) * 10_000) / 10_000,
      compact_threshold: limits.compactThreshold,
      compacting: this.running,
      last_compaction:
        last === null
          ? null
          : { position: last.position, before_tokens: last.before_tokens, after_tokens: last.after_tokens },
      last_compaction_error: this.#lastError,
      cost_usd: limits.prices === null ? null : usageCost(row.usage, limits.prices),
      warnings: limits.warnings,
    };
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * After a "context too long" the model's window is smaller than the profile says (or its
   * default guessed): take the window the error names, or else what was just refused, so the
   * compaction plans for the window the provider really has.
   */
  #withObservedWindow(bound: BoundClient, error: unknown): BoundClient {
    const reported = error instanceof LlmClientError ? reportedContextWindow(error) : null;
    const refused = this.account.lastSentTokens;
    const observed = reported ?? (refused === null ? null : Math.floor(refused * 0.9));
    if (observed === null || observed >= bound.limits.contextWindow) return bound;
    return { ...bound, limits: { ...bound.limits, contextWindow: Math.max(256, observed) } };
  }

  /** A compaction inside a turn; its failure is reported and the turn goes on without it. */
  async #compactQuietly(
    trigger: CompactionTrigger,
    bound: BoundClient,
    turnId: string,
    signal: AbortSignal,
    record: UsageRecorder,
  ): Promise<"written" | "skipped" | "failed"> {
    const plan = this.plan(bound);
    if (plan === null) return "skipped";
    // Before a request, a compaction that would replace little (the context is mostly what it
    // must keep, or the system prompt and tools) is not worth a summary request each time.
    const usable = budgets(bound.limits, bound.requestConfig.max_tokens, this.account.overhead).trigger;
    if (trigger === "auto" && plan.summarizedTokens < usable * minimumGain) return "skipped";
    const controller = new AbortController();
    const forward = () => controller.abort(signal.reason);
    signal.addEventListener("abort", forward, { once: true });
    this.#running = controller;
    try {
      const before = this.account.size(this.#port.log.state).tokens;
      await this.#run(trigger, bound, turnId, plan, before, controller.signal, record);
      return "written";
    } catch (error) {
      if (signal.aborted) throw error;
      this.#failed(trigger, turnId, error);
      return "failed";
    } finally {
      signal.removeEventListener("abort", forward);
      this.#running = null;
    }
  }

  /** Summarize, check, append; throws when nothing was written. */
  async #run(
    trigger: CompactionTrigger,
    bound: BoundClient,
    turnId: string | null,
    plan: CompactionPlan,
    before: number,
    signal: AbortSignal,
    record: UsageRecorder,
  ): Promise<void> {
    const port = this.#port;
    const { log } = port;
    const shares = budgets(bound.limits, bound.requestConfig.max_tokens, this.account.overhead);
    port.publish("compaction_started", {
      run_id: turnId,
      trigger,
      before_tokens: before,
      after_tokens: plan.keptTokens,
      first_kept_position: plan.firstKeptPosition,
    });
    const result = await summarizeItems(
      bound.client,
      plan.summarized,
      { pieceTokens: shares.pieceTokens, summaryTokens: shares.summaryTokens },
      signal,
    );
    // Summary and summarized part are compared by the same estimate; the context's size after
    // is its size before (measured where the provider said) less what the summary replaces.
    const summaryTokens = this.account.itemTokens(compactionSummaryItem(result.summary));
    if (summaryTokens >= plan.summarizedTokens) {
      throw new Error(
        `the summary would not make the context smaller (about ${summaryTokens} tokens for ${plan.summarizedTokens} summarized); nothing was changed`,
      );
    }
    const after = Math.max(summaryTokens + plan.keptTokens, before - plan.summarizedTokens + summaryTokens);
    const usage = record(result.usage);
    const entry: LogEntry = {
      kind: "compaction",
      ts: port.now(),
      summary: result.summary,
      first_kept_position: plan.firstKeptPosition,
      before_tokens: before,
      after_tokens: after,
      trigger,
      model: bound.model,
      ...(usage === null ? {} : { usage }),
      ...(turnId === null ? {} : { turn_id: turnId }),
    };
    const placed = await port.serialize(async () => {
      signal.throwIfAborted();
      const committed = await log.commit([entry], { usage: result.usage });
      // Stored with this commit (not with a turn's end): told in the same mailbox task, so a
      // snapshot's totals and the `usage` events after its cursor add up.
      if (hasUsage(result.usage)) port.publish("usage", usageEventData(turnId, bound.model, result.usage));
      return committed;
    });
    this.#lastError = null;
    port.logger.info(
      { ...turnLogFields(port, turnId), trigger, before, after, requests: result.requests },
      "compacted a session's context",
    );
    port.publish("compaction_completed", {
      run_id: turnId,
      trigger,
      before_tokens: before,
      after_tokens: after,
      first_kept_position: plan.firstKeptPosition,
      position: placed[0]?.position ?? log.position,
    });
  }

  #failed(trigger: CompactionTrigger, turnId: string | null, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.#lastError = message;
    this.#port.logger.warn(
      { ...turnLogFields(this.#port, turnId), trigger, err: error },
      "a compaction failed",
    );
    this.#port.publish("compaction_failed", {
      run_id: turnId,
      trigger,
      message: boundText(message).text,
    });
  }
}
