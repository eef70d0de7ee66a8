/**
 * A whole Chat Completions response (`choices[].message`) as the one chunk of a stream
 * (`choices[].delta`, tool calls indexed) followed by `[DONE]`.
 *
 * Boundary rule: pure data conversion.
 */
import type { SseMessage } from "../sse-decoder.js";
import { isWireObject, objectAt, objectsAt } from "../wire-json.js";

export function chatWholeResponse(document: unknown): SseMessage[] {
  if (!isWireObject(document)) return [{ data: JSON.stringify(document) }];
  const choices = objectsAt(document, "choices").map((choice) => {
    const message = objectAt(choice, "message") ?? {};
    const delta: Record<string, unknown> = { ...message };
    if (Array.isArray(message.tool_calls)) {
      delta.tool_calls = message.tool_calls.map((call: unknown, index) =>
        isWireObject(call) ? { index, ...call } : call,
      );
    }
    return { index: choice.index ?? 0, delta, finish_reason: choice.finish_reason ?? "stop" };
  });
  return [{ data: JSON.stringify({ ...document, choices }) }, { data: "[DONE]" }];
}
