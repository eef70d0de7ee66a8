/**
 * One `task` call, idempotent by construction: the child's id and its input's id are derived
 * from the parent and the call (task-id.ts), so running the call again (a new turn after a
 * crash, another node) finds the child it made, admits nothing twice, never re-runs a turn that
 * ended, and reads the answer from the child's log. The steps: take a slot (task-limits.ts),
 * create the child unless it exists, admit its input unless admitted, tell the parent's stream,
 * then wait until the child's work on that input has ended (an in-process wake-up or a bounded
 * poll of the database), and give its final answer as the call's result.
 *
 * Boundary rule: the child is an ordinary session: it is created, fed and interrupted only
 * through the registry, as any client would.
 */
import type { ApprovalRecord } from "../../api/approvals.js";
import type { InputReceipt } from "../../api/inputs.js";
import type { SessionUsage } from "../../api/session-snapshot.js";
import type { AgentDefinition } from "../../home/agent-definition.js";
import { collectState } from "../../log/collect-state.js";
import { ToolError, type ToolOutput } from "../../model/tools.js";
import { pendingJson, recordJson } from "../approval/approval-gate.js";
import { SessionExistsError } from "../errors.js";
import type { EventPublisher } from "../session/session-services.js";
import { noUsage } from "../session/usage-roll-up.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { ApprovalRelay, type ChildApprovals } from "./approval-relay.js";
import { type ChildEnding, childEnding } from "./child-ending.js";
import type { TaskArguments } from "./task-arguments.js";
import { taskClientIdPrefix, taskId } from "./task-id.js";
import type { TaskServices } from "./task-services.js";

/** The most characters of a child's answer the call's result carries. */
const maxAnswerLength = 32_000;

/** One `task` call of `parent`. */
export interface TaskCall {
  parent: SessionRow;
  callId: string;
  args: TaskArguments;
  agent: AgentDefinition;
  publish: EventPublisher;
  signal: AbortSignal;
}

/** Run the call (see the file header); the result is the child's answer, or an error result saying how it ended. */
export async function runTask(services: TaskServices, call: TaskCall): Promise<ToolOutput> {
  const { parent, callId, args, signal } = call;
  const release = await services.limits.acquire(
    parent.id,
    Math.max(1, services.settings().maxParallelTasks),
    signal,
  );
  const childId = taskId("session", parent.id, callId);
  const inputId = taskId("input", parent.id, callId);
  const relay = new ApprovalRelay(childId, call.publish, () => childApprovals(services, childId));
  const stopRelay = services.hub.relayApprovals(childId, relay);
  try {
    await ensureChild(services, call, childId);
    call.publish("task_started", { call_id: callId, child_session_id: childId, agent: args.agent });
    // A fork's system prompt is its parent's: the agent's prompt comes with the task instead.
    const text = args.context === "fork" ? `${call.agent.prompt}\n\n${args.prompt}` : args.prompt;
    await admit(services, childId, inputId, text, parent.id);
    // Calls of the child that already wait (asked before a restart, or on another node).
    await relay.catchUp();
    const ending = await waitForEnding(services, childId, inputId, signal);
    const usage = await usageOf(services, childId);
    call.publish("task_completed", {
      call_id: callId,
      child_session_id: childId,
      state: ending === "cancelled" ? "cancelled" : ending.state,
      usage,
    });
    return resultOf(ending, args.agent, childId);
  } finally {
    stopRelay();
    release();
  }
}

async function ensureChild(services: TaskServices, call: TaskCall, childId: string): Promise<void> {
  if (await services.registry.exists(childId)) return;
  try {
    await services.createChild({
      id: childId,
      parent: call.parent,
      callId: call.callId,
      agentName: call.args.agent,
      agent: call.agent,
      context: call.args.context,
      prompt: call.args.prompt,
    });
  } catch (error) {
    // Made before a crash, or by another node running the same call: it is the same child.
    if (!(error instanceof SessionExistsError)) throw error;
  }
}

/** Admit the child's input under its derived id (a second admission answers the first's receipt). */
async function admit(
  services: TaskServices,
  childId: string,
  inputId: string,
  prompt: string,
  parentId: string,
): Promise<void> {
  try {
    await services.registry.withActor(childId, (actor) =>
      actor.submit(
        inputId,
        { kind: "message", text: prompt },
        { clientId: `${taskClientIdPrefix}${parentId}`, sentBy: null, sentFrom: null },
      ),
    );
  } catch (error) {
    // Another node owns the child now: it was admitted before, or that node's recovery runs it.
    if ((await services.storage.getReceipt(childId, inputId)) === null) throw error;
  }
}

/**
 * The child's approvals: its snapshot's when this node runs it (its answers reach the relay as
 * events), else from its stored log (null, logged, when it cannot be read now).
 */
async function childApprovals(services: TaskServices, childId: string): Promise<ChildApprovals | null> {
  try {
    const actor = services.registry.loaded(childId);
    if (actor !== undefined) return { pending: (await actor.snapshot(0)).pending_approvals, decisions: {} };
    const { pending_approvals, approval_decisions, history } = collectState(
      await services.storage.readLog(childId),
    );
    const decisions: Record<string, ApprovalRecord> = {};
    for (const [callId, answer] of Object.entries(approval_decisions)) decisions[callId] = recordJson(answer);
    return { pending: pending_approvals.map((request) => pendingJson(request, history)), decisions };
  } catch (error) {
    services.logger.warn({ session_id: childId, err: error }, "could not read a task child's approvals");
    return null;
  }
}

/** Wait until the child's work on `inputId` ended; on an abort, interrupt the child and rethrow. */
async function waitForEnding(
  services: TaskServices,
  childId: string,
  inputId: string,
  signal: AbortSignal,
): Promise<ChildEnding | "cancelled"> {
  for (;;) {
    // Taken before the look, so an event between the look and the wait wakes it.
    const change = services.hub.nextChange(childId, services.pollMs, signal);
    const receipt = await services.storage.getReceipt(childId, inputId);
    if (receipt === null) throw new ToolError("execution_failed", `the child session ${childId} is gone`);
    if (receipt.delivery === "cancelled") return "cancelled";
    if (receipt.turn !== null && receipt.turn.state !== "running") {
      const entries = await services.storage.readLog(childId);
      const ending = childEnding(
        entries.map((placed) => placed.entry),
        inputId,
      );
      if (ending !== null) return ending;
    }
    if (signal.aborted) {
      await interruptChild(services, childId, receipt);
      throw signal.reason;
    }
    await change;
  }
}

/**
 * The parent's call was stopped: stop the child's turn for the task, or its input if still
 * queued, on the node that owns the child (this one, or another node of the cluster).
 */
async function interruptChild(services: TaskServices, childId: string, receipt: InputReceipt): Promise<void> {
  const through = receipt.turn === null ? receipt.acceptance_order : 0;
  try {
    const runId = await taskTurnOf(services, childId, receipt);
    if (await services.interruptElsewhere(childId, runId, through)) return;
    await services.registry.withActor(childId, (actor) => actor.interrupt(runId, through));
  } catch (error) {
    services.logger.warn({ session_id: childId, err: error }, "could not interrupt a task's child session");
  }
}

/**
 * The child's turn that works on the task now: the input's own, or, when a crash cut that one
 * short (abandoned, no ending yet), the turn that goes on with it, which is the child's running one.
 */
async function taskTurnOf(
  services: TaskServices,
  childId: string,
  receipt: InputReceipt,
): Promise<string | null> {
  if (receipt.turn === null || receipt.turn.state === "running") return receipt.turn?.id ?? null;
  return (await services.storage.runningTurnOf(childId))?.id ?? null;
}

async function usageOf(services: TaskServices, childId: string): Promise<SessionUsage> {
  const row = await services.storage.getSession(childId);
  return row?.usage ?? noUsage;
}

function resultOf(ending: ChildEnding | "cancelled", agent: string, childId: string): ToolOutput {
  if (ending === "cancelled") {
    return {
      output: `The task was cancelled before agent ${agent} started it (session ${childId}).`,
      is_error: true,
    };
  }
  const answer = bounded(ending.answer);
  switch (ending.state) {
    case "completed":
      return answer === "" ? `Agent ${agent} finished without a text answer (session ${childId}).` : answer;
    case "interrupted":
      return {
        output: `Agent ${agent} was interrupted before it finished (session ${childId}).${lastWords(answer)}`,
        is_error: true,
      };
    case "failed":
      return {
        output: `Agent ${agent} failed (session ${childId}): ${ending.error ?? "unknown error"}.${lastWords(answer)}`,
        is_error: true,
      };
    default: {
      const unknown: never = ending.state;
      return { output: `Agent ${agent} ended as ${String(unknown)}.`, is_error: true };
    }
  }
}

function lastWords(answer: string): string {
  return answer === "" ? "" : ` Its last answer:\n${answer}`;
}

/** `text` cut to `maxAnswerLength` characters, saying so. */
function bounded(text: string): string {
  if (text.length <= maxAnswerLength) return text;
  return `${text.slice(0, maxAnswerLength)}\n[answer cut at ${maxAnswerLength} of ${text.length} characters]`;
}
