/**
 * What every request builder does to the history before it goes on the wire, so that any
 * history the log can hold is one the vendor accepts (the log itself keeps items verbatim):
 * - a tool call's arguments that are not a JSON object (a call cut off at the output limit,
 *   a garbled one) are sent as `{}`: Ollama and others refuse the whole request otherwise, and
 *   the call's result already told the model what happened;
 * - an error result with no text gets one: Anthropic answers 400 "content cannot be empty if
 *   `is_error` is true", and an empty error tells the model nothing;
 * - a tool result whose call is not in the history (left behind by an exclusion or an older
 *   log) is left out, a call whose result is missing gets an error result saying so, messages
 *   between calls and their results move after the results, and a second open call with the
 *   same id (some servers reuse ids) goes by an id of its own: every vendor refuses an unpaired
 *   call or result.
 *
 * Boundary rule: pure functions over items.
 */
import { type Item, type ToolResultItem, toolResult } from "../model/items.js";
import { toolArgumentsObject } from "../model/tool-arguments.js";
import { unreachable } from "../model/unreachable.js";

/** What an error result with no text of its own is sent as. */
const emptyErrorText = "The tool failed without an error message.";

/** What a call that lost its result is answered with. */
const missingResultText = "No result was recorded for this tool call.";

/** `args` when it is a JSON object, else `{}`. */
export function sendableArguments(args: string): string {
  return toolArgumentsObject(args) === null ? "{}" : args;
}

/** The text a tool result is sent with: its output, or a placeholder for an empty error. */
export function resultText(item: ToolResultItem): string {
  return item.is_error === true && item.output.trim().length === 0 ? emptyErrorText : item.output;
}

/** An item as it is sent, and the position in the request's items it comes from (none: made up here). */
export interface PairedItem {
  item: Item;
  from?: number;
}

/**
 * The items with every call and result paired: results without a call before them dropped,
 * calls without a result before the next non-call item answered with an error result.
 */
export function pairedItems(items: readonly Item[]): Item[] {
  return pairedEntries(items).map((entry) => entry.item);
}

/** `pairedItems`, each with the position it comes from (a builder says so for a refusal naming it). */
export function pairedEntries(items: readonly Item[]): PairedItem[] {
  const resultAt = new Map<string, number>();
  items.forEach((item, position) => {
    if (item.type === "tool_result") resultAt.set(item.call_id, position);
  });
  const out: PairedItem[] = [];
  /** The calls of the current step still waiting for a result: their id and the id they go by. */
  let open: { id: string; wire: string }[] = [];
  let stepIds = new Set<string>();
  /** Items that came between calls and their results: they go after the results. */
  let deferred: PairedItem[] = [];
  // Called before every message: it makes nothing new when the step is already closed.
  const closeStep = () => {
    if (open.length > 0) {
      for (const call of open) out.push({ item: toolResult(call.wire, missingResultText, true) });
      open = [];
    }
    if (stepIds.size > 0) stepIds = new Set();
    if (deferred.length > 0) {
      out.push(...deferred);
      deferred = [];
    }
  };
  const awaited = (position: number) => open.some((call) => (resultAt.get(call.id) ?? -1) > position);
  items.forEach((item, position) => {
    switch (item.type) {
      case "tool_call": {
        // A call after some result of its step starts another step.
        if (stepIds.size > open.length) closeStep();
        // Two open calls with one id cannot be told apart on the wire: the second gets its own.
        let wire = item.call_id;
        for (let n = 2; stepIds.has(wire); n++) wire = `${item.call_id}_${n}`;
        stepIds.add(wire);
        open.push({ id: item.call_id, wire });
        out.push({ item: wire === item.call_id ? item : { ...item, call_id: wire }, from: position });
        break;
      }
      case "tool_result": {
        const at = open.findIndex((call) => call.id === item.call_id);
        if (at < 0) break;
        const [call] = open.splice(at, 1);
        out.push({
          item: call!.wire === item.call_id ? item : { ...item, call_id: call!.wire },
          from: position,
        });
        if (open.length === 0) closeStep();
        break;
      }
      case "message":
        if (awaited(position)) {
          deferred.push({ item, from: position });
          break;
        }
        closeStep();
        out.push({ item, from: position });
        break;
      case "reasoning":
        // Reasoning starts an answer: the calls before it got no result of their own.
        closeStep();
        out.push({ item, from: position });
        break;
      default:
        unreachable(item, "unknown item");
    }
  });
  // Calls still open have no result: a request is sent only after their tools ran, so none will come.
  closeStep();
  return out;
}
