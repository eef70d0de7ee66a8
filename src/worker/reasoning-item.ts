/**
 * The reasoning item a closed thinking block becomes. Pure.
 */
import type { ReasoningData } from "../model/events.js";
import type { ReasoningItem } from "../model/items.js";

/**
 * The reasoning item for a closed thinking block: the stop's data wins, the streamed text is the
 * fallback. An empty block with nothing to send back is dropped.
 */
export function reasoningItem(
  streamedText: string,
  data: ReasoningData | undefined,
  durationMs?: number,
): ReasoningItem | undefined {
  const text = data?.text !== undefined && data.text !== "" ? data.text : streamedText;
  const item: ReasoningItem = { type: "reasoning", text };
  if (data?.summary !== undefined && data.summary.length > 0) item.summary = [...data.summary];
  if (data?.signature !== undefined) item.signature = data.signature;
  if (data?.encrypted_content !== undefined) item.encrypted_content = data.encrypted_content;
  if (data?.redacted === true) item.redacted = true;
  if (data?.id !== undefined) item.id = data.id;
  if (data?.details !== undefined && data.details.length > 0) item.details = structuredClone(data.details);
  if (durationMs !== undefined) item.duration_ms = durationMs;
  if (data?.origin !== undefined) item.origin = data.origin;
  // An id alone matters: a stored response's function call is refused without its reasoning.
  const worthKeeping =
    text !== "" ||
    item.summary !== undefined ||
    item.signature !== undefined ||
    item.encrypted_content !== undefined ||
    item.redacted === true ||
    item.id !== undefined ||
    item.details !== undefined;
  return worthKeeping ? item : undefined;
}
