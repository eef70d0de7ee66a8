/**
 * A whole Gemini answer as its stream: one GenerateContentResponse is one event, and an array
 * of them (`streamGenerateContent` without `alt=sse`) is one event each.
 *
 * Boundary rule: pure data conversion.
 */
import type { SseMessage } from "../sse-decoder.js";

export function geminiWholeResponse(document: unknown): SseMessage[] {
  const responses = Array.isArray(document) ? document : [document];
  return responses.map((response) => ({ data: JSON.stringify(response) }));
}
