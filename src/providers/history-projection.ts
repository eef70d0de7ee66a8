/**
 * What every request builder does to the history before it goes on the wire, so that any
 * history the log can hold is one the vendor accepts (the log itself keeps items verbatim):
 * - a tool call's arguments that are not a JSON object (a call cut off at the output limit,
 *   a garbled one) are sent as `{}`: Ollama and others refuse the whole request otherwise, and
 *   the call's result already told the model what happened;
 * - an error result with no text gets one: Anthropic answers 400 "content cannot be empty if
 *   `is_error` is true", and an empty error tells the model nothing;
 * - a tool result whose call is not in the history (left behind by an exclusion or an older
 *   log) is left out, a call whose result is missing gets an error result saying so, unless it
 *   is in the last step (its tools run before the next request), and items between calls and
 *   their results move after the results: every vendor refuses an unpaired call or result.
 *
 * Boundary rule: pure functions over items.
 */
import { type Item, type ToolResultItem, toolResult } from "../model/items.js";

/** What an error result with no text of its own is sent as. */
export const emptyErrorText = "The tool failed without an error message.";

/** What a call that lost its result is answered with. */
export const missingResultText = "No result was recorded for this tool call.";

/** `args` when it is a JSON object, else `{}`. */
export function sendableArguments(args: string): string {
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? args : "{}";
  } catch {
    return "{}";
  }
}

/** The text a tool result is sent with: its output, or a placeholder for an empty error. */
export function resultText(item: ToolResultItem): string {
  return item.is_error === true && item.output.trim().length === 0 ? emptyErrorText : item.output;
}

/**
 * The items with every call and result paired: results without a call before them dropped,
 * calls without a result before the next non-call item answered with an error result.
 */
export function pairedItems(items: readonly Item[]): Item[] {
  const resultAt = new Map<string, number>();
  items.forEach((item, position) => {
    if (item.type === "tool_result") resultAt.set(item.call_id, position);
  });
  const out: Item[] = [];
  /** The calls of the current step still waiting for a result, in call order. */
  let open: string[] = [];
  let stepAnswered = false;
  /** Items that came between calls and their results: they go after the results. */
  let deferred: Item[] = [];
  const flushDeferred = () => {
    out.push(...deferred);
    deferred = [];
  };
  const closeStep = () => {
    for (const id of open) out.push(toolResult(id, missingResultText, true));
    open = [];
    stepAnswered = false;
    flushDeferred();
  };
  const awaited = (position: number) => open.some((id) => (resultAt.get(id) ?? -1) > position);
  items.forEach((item, position) => {
    switch (item.type) {
      case "tool_call":
        // A call after results (or after an answered call) starts another step.
        if (stepAnswered) closeStep();
        open.push(item.call_id);
        out.push(item);
        break;
      case "tool_result": {
        const at = open.indexOf(item.call_id);
        if (at < 0) break;
        open.splice(at, 1);
        stepAnswered = true;
        out.push(item);
        if (open.length === 0) closeStep();
        break;
      }
      case "message":
      case "reasoning":
        if (awaited(position)) {
          deferred.push(item);
          break;
        }
        closeStep();
        out.push(item);
        break;
      default: {
        const unreachable: never = item;
        throw new Error(`unknown item ${JSON.stringify(unreachable)}`);
      }
    }
  });
  // The last step's calls wait for their tools, unless some of them were answered already.
  if (stepAnswered) closeStep();
  flushDeferred();
  return out;
}
