/**
 * What a turn traces besides its requests: each compaction its hooks run, and each tool call's
 * approval, inside spans of the turn's trace.
 *
 * Boundary rule: adds spans and nothing else; whether and how to compact stays the compactor's,
 * what a call may do the approval gate's.
 */
import type { ToolCallItem } from "../../model/items.js";
import type { BeforeToolCallAction } from "../../worker/index.js";
import type { TurnCompaction } from "../compaction/compaction.js";
import type { TurnTrace } from "../telemetry/turn-trace.js";

/** `compaction` with a span around every compaction it runs (itself when the turn is not traced). */
export function tracedCompaction(
  compaction: TurnCompaction | undefined,
  trace: TurnTrace | undefined,
): TurnCompaction | undefined {
  if (compaction === undefined || trace === undefined) return compaction;
  return {
    ...compaction,
    beforeRequest: (items, signal) =>
      compaction.due()
        ? spanned(trace, () => compaction.beforeRequest(items, signal))
        : compaction.beforeRequest(items, signal),
    compactAfterOverflow: (signal, error) =>
      spanned(trace, () => compaction.compactAfterOverflow(signal, error)),
  };
}

async function spanned<T>(trace: TurnTrace, work: () => Promise<T>): Promise<T> {
  const end = trace.compactionStarted();
  try {
    const result = await work();
    end();
    return result;
  } catch (error) {
    end(error);
    throw error;
  }
}

/** A call's approval decided inside its tool's span; a call that will not run ends its span here. */
export async function tracedDecision(
  trace: TurnTrace,
  call: ToolCallItem,
  decide: () => Promise<BeforeToolCallAction>,
): Promise<BeforeToolCallAction> {
  trace.toolCalled(call);
  const decided = trace.approval(call.call_id);
  let action: BeforeToolCallAction;
  try {
    action = await decide();
  } catch (error) {
    decided("failed");
    trace.toolEnded(call.call_id, { isError: true, reason: "approval failed" });
    throw error;
  }
  decided(action.action);
  if (action.action !== "continue") {
    const isError = action.action === "result" ? action.result.is_error === true : action.action !== "pause";
    trace.toolEnded(call.call_id, { isError, reason: action.action });
  }
  return action;
}
