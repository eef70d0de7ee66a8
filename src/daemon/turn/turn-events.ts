/**
 * The stream events a turn publishes about its tool calls (`tool`), built from what the agent
 * loop observed (its requests' `usage` events: session/usage-event.ts).
 *
 * Boundary rule: pure functions; text too large for an event is cut to its start (the whole of
 * it is in the history entries).
 */
import type { SessionEventData } from "../../api/session-events.js";
import type { ToolCallItem, ToolResultItem } from "../../model/items.js";
import { boundText } from "../history/bounded-entry.js";

/**
 * The `tool` event: a call starting (result null) or finished. Arguments or a result too large
 * for an event are cut to their start; `truncated` gives their full size, and the whole text is
 * in the call's and the result's history entries.
 */
export function toolEventData(call: ToolCallItem, result: ToolResultItem | null): SessionEventData["tool"] {
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
