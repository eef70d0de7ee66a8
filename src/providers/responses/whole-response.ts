/**
 * A whole Responses object as the events of its stream: each output item added, its text
 * parts added and done, the item done, then `response.completed` (or `response.incomplete`,
 * `response.failed`, by its status).
 *
 * Boundary rule: pure data conversion.
 */
import type { SseMessage } from "../sse-decoder.js";
import { isWireObject, objectsAt, stringAt } from "../wire-json.js";

function message(type: string, fields: Record<string, unknown>): SseMessage {
  return { event: type, data: JSON.stringify({ type, ...fields }) };
}

const terminalEvents: Readonly<Record<string, string>> = {
  incomplete: "response.incomplete",
  failed: "response.failed",
};

export function responsesWholeResponse(document: unknown): SseMessage[] {
  if (!isWireObject(document) || (document.object !== "response" && document.error !== undefined)) {
    return [message("error", isWireObject(document) ? document : { message: String(document) })];
  }
  const out: SseMessage[] = [];
  objectsAt(document, "output").forEach((item, output_index) => {
    out.push(message("response.output_item.added", { output_index, item }));
    if (item.type === "message") {
      objectsAt(item, "content").forEach((part, content_index) => {
        out.push(message("response.content_part.added", { output_index, content_index, part }));
        out.push(message("response.content_part.done", { output_index, content_index, part }));
      });
    }
    out.push(message("response.output_item.done", { output_index, item }));
  });
  const terminal = terminalEvents[stringAt(document, "status") ?? ""] ?? "response.completed";
  out.push(message(terminal, { response: document }));
  return out;
}
