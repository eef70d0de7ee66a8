/**
 * One tool batch: the calls of one model response (or the calls an interrupted run left pending).
 *
 * Boundary rule: decides and computes results; never touches history (the run commits them).
 * Phases: (1) per call, in order: refuse calls that cannot run (unknown tool, arguments that are
 * not a JSON object) with an is_error result, then ask `beforeToolCall`; (2) run the approved
 * calls in parallel, all racing the run's cancellation; (3) per executed call, in order, ask
 * `afterToolCall`. Every call gets exactly one result (skips included), in call order. A pause or
 * an abort returns/throws before anything is committed, so all calls of the batch stay pending.
 */
import { type ToolCallItem, type ToolResultItem, toolResult } from "../model/items.js";
import type { Tool } from "../model/tools.js";
import { errorMessage, WorkerError } from "./errors.js";
import { type Awaitable, type Interceptor, type ToolCallResult, unknownAction } from "./interceptor.js";
import type { WorkerObserver } from "./observer.js";
import { checkToolArguments } from "./tool-arguments.js";
import type { RegisteredTool, ToolRegistry } from "./tool-registry.js";

/** What a batch needs from the run it belongs to. */
export interface ToolBatchRun {
  readonly signal: AbortSignal;
  readonly tools: ToolRegistry;
  readonly interceptor: Interceptor;
  readonly observer: WorkerObserver;
  /** Awaits `work`, rejecting with a "cancelled" WorkerError as soon as the run is cancelled. */
  untilCancelled<T>(work: Promise<T>): Promise<T>;
  /** Calls an interceptor hook; a throw becomes an "aborted" WorkerError. */
  callHook<T>(hook: keyof Interceptor, invoke: () => Awaitable<T>): Promise<T>;
  /** Calls an observer; a throw becomes an "aborted" WorkerError. */
  notify(callback: keyof WorkerObserver, invoke: () => void): void;
}

/** What the batch knows of the response its calls came from. */
export interface ToolBatchOptions {
  /** The response stopped at the output limit: a call with broken arguments was cut off. */
  cutOff?: boolean;
}

export type ToolBatchOutcome = { kind: "results"; results: ToolResultItem[] } | { kind: "paused" };

interface Slot {
  /** The call as the model made it; its call_id files the result. */
  readonly call: ToolCallItem;
  result?: ToolCallResult;
  execution?: { call: ToolCallItem; tool: RegisteredTool };
}

type Resolution = { kind: "runnable"; tool: RegisteredTool } | { kind: "refused"; result: ToolCallResult };

/** Runs one batch; see the file header for the phases. */
export async function runToolBatch(
  calls: readonly ToolCallItem[],
  run: ToolBatchRun,
  options: ToolBatchOptions = {},
): Promise<ToolBatchOutcome> {
  const slots: Slot[] = [];
  for (const call of calls) {
    const slot: Slot = { call };
    slots.push(slot);
    const decision = await decide(call, run, options);
    if (decision === "pause") return { kind: "paused" };
    if ("result" in decision) slot.result = decision.result;
    else slot.execution = decision;
  }

  const executions = slots.map(async (slot) => {
    if (slot.execution === undefined) return;
    const { call, tool } = slot.execution;
    run.notify("onToolCallStart", () => run.observer.onToolCallStart?.(call));
    const result = await execute(tool.tool, call, run.signal);
    slot.result = result;
    run.notify("onToolCallEnd", () =>
      run.observer.onToolCallEnd?.(call, toolResult(call.call_id, result.output, result.is_error === true)),
    );
  });
  await run.untilCancelled(Promise.all(executions));

  const after = run.interceptor.afterToolCall;
  if (after !== undefined) {
    for (const slot of slots) {
      if (slot.execution === undefined || slot.result === undefined) continue;
      const call = structuredClone(slot.execution.call);
      const result = { ...slot.result };
      const action = await run.callHook("afterToolCall", () => after.call(run.interceptor, call, result));
      switch (action.action) {
        case "continue":
          if (action.result !== undefined) slot.result = action.result;
          break;
        case "abort":
          throw WorkerError.aborted(action.reason);
        default:
          unknownAction("afterToolCall", action);
      }
    }
  }

  return {
    kind: "results",
    results: slots.map((slot) => {
      const result = slot.result ?? { output: "Tool call produced no result.", is_error: true };
      return toolResult(slot.call.call_id, result.output, result.is_error === true);
    }),
  };
}

type Decision = "pause" | { result: ToolCallResult } | { call: ToolCallItem; tool: RegisteredTool };

async function decide(call: ToolCallItem, run: ToolBatchRun, options: ToolBatchOptions): Promise<Decision> {
  const resolution = resolve(call, run.tools, options);
  if (resolution.kind === "refused") return { result: resolution.result };
  const before = run.interceptor.beforeToolCall;
  if (before === undefined) return { call, tool: resolution.tool };

  const copy = structuredClone(call);
  const action = await run.callHook("beforeToolCall", () =>
    before.call(run.interceptor, copy, resolution.tool.meta),
  );
  switch (action.action) {
    case "continue": {
      if (action.call === undefined) return { call, tool: resolution.tool };
      // A rewrite may change name and arguments, never which call the result answers.
      const rewritten: ToolCallItem = { ...action.call, call_id: call.call_id };
      const again = resolve(rewritten, run.tools, {});
      return again.kind === "refused" ? { result: again.result } : { call: rewritten, tool: again.tool };
    }
    case "skip":
      return {
        result: {
          output:
            action.reason === undefined
              ? "Tool call skipped by an interceptor."
              : `Tool call skipped: ${action.reason}`,
          is_error: true,
        },
      };
    case "abort":
      throw WorkerError.aborted(action.reason);
    case "pause":
      return "pause";
    case "result":
      return { result: { output: action.result.output, is_error: action.result.is_error === true } };
    default:
      return unknownAction("beforeToolCall", action);
  }
}

/** What the model is told about a call its answer's output limit cut off (its arguments are not resent). */
function cutOffText(name: string): string {
  return `Tool ${name} was not run: your answer reached the output limit while this call's arguments were being written, so they were cut off. Make the call again with complete arguments; split large content over several smaller calls.`;
}

function resolve(call: ToolCallItem, tools: ToolRegistry, options: ToolBatchOptions): Resolution {
  const tool = tools.get(call.name);
  if (tool === undefined)
    return { kind: "refused", result: { output: `Tool not found: ${call.name}`, is_error: true } };
  const check = checkToolArguments(call.arguments);
  if (!check.ok) {
    const output =
      options.cutOff === true ? cutOffText(call.name) : `Tool ${call.name} was not run: ${check.problem}.`;
    return { kind: "refused", result: { output, is_error: true } };
  }
  return { kind: "runnable", tool };
}

/** Runs one tool; a throw or an `is_error` output becomes an error result, never a run failure. */
async function execute(tool: Tool, call: ToolCallItem, signal: AbortSignal): Promise<ToolCallResult> {
  try {
    const output = await tool.execute(call.arguments, { call_id: call.call_id, signal });
    return typeof output === "string"
      ? { output, is_error: false }
      : { output: output.output, is_error: output.is_error === true };
  } catch (error) {
    return { output: errorMessage(error), is_error: true };
  }
}
