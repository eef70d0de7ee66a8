/**
 * A session's approvals: which committed tool calls wait for a person, the answers, and what a
 * turn's loop does with them. The requests of a model response are logged in the same commit as
 * the response (so a call never exists without its request), an answer is logged before its
 * tool may run, and both live in the log's replay (`pending_approvals`, `approval_decisions`),
 * which is therefore the only copy: after a restart the same calls still wait.
 *
 * Rules worth knowing:
 * - The loop decides every call of a batch before it runs any (see worker/tool-batch.ts). So
 *   while one call of the batch waits, no call of it has started: a turn that stops then
 *   (interrupt, crash) leaves nothing whose outcome is unknown.
 * - `ask_user` always asks; an `allow` answer's `message` is the tool's result.
 *
 * How a waiting call meets its answer: the call waits on the log, not on whoever answers. The
 * gate hears every commit of the session (it observes the log writer): it tells the clients of
 * the approval entries in it, then wakes each call whose answer the replay now holds. So an
 * answer, whoever commits it (a client, a remembered rule, a turn's end), reaches the waiting
 * call the same way, only once durable; a call that stops waiting (its turn aborted) leaves.
 *
 * Boundary rule: everything it writes runs in the session's mailbox (`SessionPort.serialize`)
 * through the log writer; `beforeToolCall` runs in the turn (outside the mailbox) and only
 * reads the replay or waits.
 */
import type { ApprovalAnswerBody, ApprovalRecord, PendingApproval } from "../../api/approvals.js";
import type { LogEntry } from "../../log/entries.js";
import type {
  PendingApproval as LoggedRequest,
  ResolvedApproval,
  RestoredState,
} from "../../log/restored-state.js";
import type { PlacedEntry } from "../../log/session-writer.js";
import type { ApprovalPolicy, ApprovalResolver, MatchedRule } from "../../model/approval-policy.js";
import { type Item, type ToolCallItem, type ToolResultItem, toolResult } from "../../model/items.js";
import { openToolCalls } from "../../model/open-tool-calls.js";
import { toolArgumentsObject } from "../../model/tool-arguments.js";
import { unreachable } from "../../model/unreachable.js";
import type { BeforeToolCallAction } from "../../worker/index.js";
import { ApprovalAnswerInvalidError, ApprovalConflictError, ApprovalUnknownError } from "../errors.js";
import { boundText } from "../history/bounded-entry.js";
import type { Sender } from "../http/credential.js";
import { closeOpenCalls } from "../session/open-tool-calls.js";
import type { SessionPort } from "../session/session-port.js";
import { askUserToolName, judgeCall, rememberedRule, ruleCovers } from "./approval-policy.js";
import { questionOf } from "./ask-user-tool.js";
import {
  answeredAction,
  deniedByPolicy,
  knownResult,
  notRunText,
  questionMissingText,
} from "./call-outcomes.js";
import { answerProblem, approvalKindOf, isUnknownOutcomeDecision } from "./unknown-outcome-requests.js";

/** What a turn's calls are judged with. */
export interface TurnPolicy {
  workspace: string;
  /** config.json's top-level policy and the session profile's, as the turn started. */
  config?: ApprovalPolicy | undefined;
  profile?: ApprovalPolicy | undefined;
  /** The turn's tools: a call to any other fails at once and waits for nothing. */
  tools: ReadonlySet<string>;
}

/** A call of a turn waiting for its answer. */
interface Waiter {
  callId: string;
  wake(answer: ResolvedApproval): void;
}

export class ApprovalGate {
  readonly #port: SessionPort;
  /** The calls waiting now: each added by its own turn, removed when woken or when its turn stops. */
  readonly #waiters = new Set<Waiter>();

  /** The gate of the session behind `port`; it hears every commit of its log from now on. */
  constructor(port: SessionPort) {
    this.#port = port;
    port.log.observe({ committed: (placed) => this.#committed(placed) });
  }

  /** Whether any call waits for an answer. */
  get waiting(): boolean {
    return this.#port.log.state.pending_approvals.length > 0;
  }

  /** The waiting calls as a snapshot lists them. */
  pending(): PendingApproval[] {
    const { history } = this.#port.log.state;
    return this.#port.log.state.pending_approvals.map((request) => pendingJson(request, history));
  }

  /**
   * Inside the mailbox, for a model response about to be committed: the requests to log with
   * it, one per call that must wait (calls to unknown tools or with arguments that are no
   * object get none: they fail at once, as without approvals).
   */
  requestEntries(items: readonly Item[], policy: TurnPolicy, turnId: string): LogEntry[] {
    const entries: LogEntry[] = [];
    for (const item of items) {
      if (item.type !== "tool_call" || !policy.tools.has(item.name)) continue;
      const args = toolArgumentsObject(item.arguments);
      if (args === null) continue;
      const rule = this.#ruleFor(item, args, policy);
      if (rule?.action !== "ask") continue;
      entries.push(requestEntry(item, rule, this.#port.now(), turnId));
    }
    return entries;
  }

  /**
   * After each commit of the session: tell the clients of its approval entries, then wake the
   * calls whose answer the replay now holds.
   */
  #committed(placed: readonly PlacedEntry[]): void {
    const { log } = this.#port;
    let answered = false;
    for (const { entry } of placed) {
      if (entry.kind === "approval_requested") {
        const request = log.state.pending_approvals.find((pending) => pending.call_id === entry.call_id);
        if (request !== undefined)
          this.#port.publish("approval_requested", pendingJson(request, log.state.history));
      } else if (entry.kind === "approval_resolved") {
        const answer = log.state.approval_decisions[entry.call_id];
        if (answer === undefined) continue;
        this.#port.publish("approval_resolved", { ...recordJson(answer), run_id: entry.turn_id ?? null });
        answered = true;
      }
    }
    if (answered) this.#wake();
  }

  /**
   * The interceptor hook of a turn: run, refuse or wait. A call already answered takes its
   * answer; a call with a logged request waits for one; any other call is judged now (and, if
   * it must wait, its request is logged first). `signal`: the turn's; once it aborts the call
   * waits no more (the loop has given up on it).
   */
  async beforeToolCall(
    call: ToolCallItem,
    policy: TurnPolicy,
    turnId: string,
    signal?: AbortSignal,
  ): Promise<BeforeToolCallAction> {
    const { log } = this.#port;
    const answered = log.state.approval_decisions[call.call_id];
    if (answered !== undefined) return answeredAction(call, answered);
    if (log.state.pending_approvals.some((request) => request.call_id === call.call_id)) {
      return answeredAction(call, await this.#answerOf(call.call_id, signal));
    }
    const rule = this.#ruleFor(call, toolArgumentsObject(call.arguments) ?? {}, policy);
    if (rule === null) {
      return {
        action: "result",
        result: { output: questionMissingText, is_error: true },
      };
    }
    switch (rule.action) {
      case "allow":
        return { action: "continue" };
      case "deny":
        return { action: "result", result: { output: deniedByPolicy(rule), is_error: true } };
      case "ask":
        await this.#port.serialize(async () => {
          if (Object.hasOwn(log.state.approval_decisions, call.call_id)) return;
          await log.commit([requestEntry(call, rule, this.#port.now(), turnId)]);
        });
        return answeredAction(call, await this.#answerOf(call.call_id, signal));
      default:
        unreachable(rule.action, "unknown approval action");
    }
  }

  /**
   * Inside the mailbox: record an answer, once. The same decision again is answered with the
   * recorded one; another decision is an ApprovalConflictError; a call that waits for nothing
   * (and was never answered) an ApprovalUnknownError. With `remember`, the rule it adds also
   * answers the other waiting calls it covers.
   */
  async answer(callId: string, body: ApprovalAnswerBody, sender: Sender): Promise<ApprovalRecord> {
    const { log, sessionId } = this.#port;
    const recorded = log.state.approval_decisions[callId];
    if (recorded !== undefined) {
      if (recorded.decision !== body.decision)
        throw new ApprovalConflictError(sessionId, callId, recorded.decision);
      return recordJson(recorded);
    }
    const request = log.state.pending_approvals.find((pending) => pending.call_id === callId);
    if (request === undefined) throw new ApprovalUnknownError(sessionId, callId);
    const problem = answerProblem(request, body);
    if (problem !== null) throw new ApprovalAnswerInvalidError(sessionId, callId, problem);
    const isQuestion = request.tool === askUserToolName;
    if (isQuestion && body.decision === "allow" && body.message === undefined) {
      throw new ApprovalAnswerInvalidError(
        sessionId,
        callId,
        "an ask_user answer needs `message`: the reply",
      );
    }
    const args = argumentsOf(log.state.history, callId);
    const verdict = isUnknownOutcomeDecision(body.decision) ? null : body.decision;
    const remember =
      body.remember === true && !isQuestion && verdict !== null
        ? rememberedRule(request.tool, args, verdict)
        : undefined;
    const now = this.#port.now();
    const entries: LogEntry[] = [
      {
        kind: "approval_resolved",
        ts: now,
        call_id: callId,
        decision: body.decision,
        by: "client",
        ...(body.client_id === undefined ? {} : { client_id: body.client_id }),
        ...(sender.principal === null ? {} : { answered_by: sender.principal }),
        ...(sender.address === null ? {} : { answered_from: sender.address }),
        ...(body.message === undefined ? {} : { message: body.message }),
        ...(remember === undefined ? {} : { remember }),
        ...turnOf(request),
      },
    ];
    if (remember !== undefined && verdict !== null) {
      for (const other of log.state.pending_approvals) {
        if (other.call_id === callId || other.tool === askUserToolName) continue;
        if (approvalKindOf(other) === "unknown_outcome") continue;
        if (!ruleCovers(remember, other.tool, argumentsOf(log.state.history, other.call_id))) continue;
        entries.push(resolvedEntry(other, verdict, "rule", now));
      }
    }
    await log.commit(entries);
    return recordJson(log.state.approval_decisions[callId]!);
  }

  /**
   * Inside the mailbox, for a turn that stops while calls wait: see `waitingCallsClosed`.
   * Empty when nothing waits.
   */
  closingEntries(by: "interrupt" | "turn_end", turnId: string): LogEntry[] {
    return waitingCallsClosed(this.#port.log.state, by, turnId, this.#port.now());
  }

  // ---------------------------------------------------------------------------------------------

  /** What the policy says about a call; null for an `ask_user` call without a question. */
  #ruleFor(call: ToolCallItem, args: Record<string, unknown>, policy: TurnPolicy): MatchedRule | null {
    if (call.name === askUserToolName) {
      return questionOf(args) === null
        ? null
        : { source: "ask_user", tool: call.name, pattern: null, action: "ask" };
    }
    const { state } = this.#port.log;
    return judgeCall(
      {
        config: policy.config,
        profile: policy.profile,
        session: state.approval_policy,
        remembered: state.remembered_rules,
        mode: state.approval_mode,
      },
      { tool: call.name, args, workspace: policy.workspace },
    );
  }

  /** The answer to a call: the recorded one, or the one a later commit brings (none once `signal` aborts). */
  #answerOf(callId: string, signal: AbortSignal | undefined): Promise<ResolvedApproval> {
    const answered = this.#port.log.state.approval_decisions[callId];
    if (answered !== undefined) return Promise.resolve(answered);
    return new Promise((resolve) => {
      const waiter: Waiter = { callId, wake: resolve };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", () => this.#waiters.delete(waiter), { once: true });
    });
  }

  /** Wake every waiting call whose answer the replay holds now. */
  #wake(): void {
    const decisions = this.#port.log.state.approval_decisions;
    for (const waiter of [...this.#waiters]) {
      const answer = decisions[waiter.callId];
      if (answer === undefined) continue;
      this.#waiters.delete(waiter);
      waiter.wake(answer);
    }
  }
}

/**
 * For a session whose turn stops while calls wait: each request denied (`by` the interrupt or
 * the turn's end) and a result for every open call, since none of the waiting batch has
 * started: "not run", or what an earlier answer gave it (a deny with the user's message); a call
 * that waited for a person's word on its unknown outcome gets the "outcome unknown" result.
 * Empty when nothing waits.
 */
export function waitingCallsClosed(
  state: Pick<RestoredState, "pending_approvals" | "approval_decisions" | "history">,
  by: "interrupt" | "turn_end",
  turnId: string,
  now: number,
): LogEntry[] {
  if (state.pending_approvals.length === 0) return [];
  const entries: LogEntry[] = state.pending_approvals.map((request) =>
    resolvedEntry(request, "deny", by, now),
  );
  const cut = new Set(
    state.pending_approvals
      .filter((request) => approvalKindOf(request) === "unknown_outcome")
      .map((request) => request.call_id),
  );
  const results: ToolResultItem[] = openToolCalls(state.history).map(
    (call) =>
      knownResult(call, state.approval_decisions, null) ??
      (cut.has(call.call_id)
        ? closeOpenCalls([call], "daemon_restart")[0]!
        : toolResult(call.call_id, notRunText[by], true)),
  );
  if (results.length > 0) entries.push({ kind: "tool_results", ts: now, items: results, turn_id: turnId });
  return entries;
}

function requestEntry(call: ToolCallItem, rule: MatchedRule, ts: number, turnId: string): LogEntry {
  return { kind: "approval_requested", ts, call_id: call.call_id, tool: call.name, rule, turn_id: turnId };
}

function resolvedEntry(
  request: LoggedRequest,
  decision: "allow" | "deny",
  by: ApprovalResolver,
  ts: number,
): LogEntry {
  return { kind: "approval_resolved", ts, call_id: request.call_id, decision, by, ...turnOf(request) };
}

function turnOf(request: LoggedRequest): { turn_id?: string } {
  return request.turn_id === null ? {} : { turn_id: request.turn_id };
}

/** A call's arguments as an object (empty when they are none). */
function argumentsOf(history: readonly Item[], callId: string): Record<string, unknown> {
  const call = findCall(history, callId);
  return (call === undefined ? null : toolArgumentsObject(call.arguments)) ?? {};
}

function findCall(history: readonly Item[], callId: string): ToolCallItem | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const item = history[i]!;
    if (item.type === "tool_call" && item.call_id === callId) return item;
  }
  return undefined;
}

/** A logged request in its wire shape, with the call's arguments (bounded like a `tool` event's). */
export function pendingJson(request: LoggedRequest, history: readonly Item[]): PendingApproval {
  const args = boundText(findCall(history, request.call_id)?.arguments ?? "{}");
  return {
    call_id: request.call_id,
    kind: approvalKindOf(request),
    tool: request.tool,
    arguments: args.text,
    ...(args.cutFrom === null ? {} : { truncated: { arguments: args.cutFrom } }),
    rule: request.rule,
    run_id: request.turn_id,
    requested_at: new Date(request.requested_at).toISOString(),
  };
}

/** A recorded answer in its wire shape. */
export function recordJson(answer: ResolvedApproval): ApprovalRecord {
  return {
    call_id: answer.call_id,
    decision: answer.decision,
    by: answer.by,
    client_id: answer.client_id,
    answered_by: answer.answered_by,
    answered_from: answer.answered_from,
    message: answer.message,
    remember: answer.remember,
    resolved_at: new Date(answer.resolved_at).toISOString(),
  };
}
