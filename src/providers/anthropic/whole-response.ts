/**
 * A whole Anthropic Message as the events of its stream: `message_start` (content emptied),
 * each content block started whole and stopped, `message_delta` with the stop reason, its
 * details and the usage, `message_stop`. An error document passes as the stream's `error`.
 *
 * Boundary rule: pure data conversion.
 */
import type { SseMessage } from "../sse-decoder.js";
import { isWireObject, objectAt, objectsAt } from "../wire-json.js";

function message(type: string, fields: Record<string, unknown>): SseMessage {
  return { event: type, data: JSON.stringify({ type, ...fields }) };
}

export function anthropicWholeResponse(document: unknown): SseMessage[] {
  if (!isWireObject(document) || document.type === "error") return [{ data: JSON.stringify(document) }];
  const out: SseMessage[] = [message("message_start", { message: { ...document, content: [] } })];
  objectsAt(document, "content").forEach((block, index) => {
    out.push(message("content_block_start", { index, content_block: block }));
    out.push(message("content_block_stop", { index }));
  });
  out.push(
    message("message_delta", {
      delta: { stop_reason: document.stop_reason ?? null, stop_details: document.stop_details ?? null },
      usage: objectAt(document, "usage") ?? {},
    }),
  );
  out.push(message("message_stop", {}));
  return out;
}
