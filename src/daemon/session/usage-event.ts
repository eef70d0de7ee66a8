/**
 * The `usage` stream event: what a model request used (a turn publishes one per request), or a
 * compaction's summary requests together (published with its commit).
 *
 * Boundary rule: a pure function.
 */
import type { SessionEventData } from "../../api/session-events.js";
import type { Usage } from "../../model/usage.js";

/** The `usage` event of one LLM request, or of a compaction's summary requests (no turn: null). */
export function usageEventData(
  turnId: string | null,
  model: string,
  usage: Usage,
): SessionEventData["usage"] {
  const prompt = usage.input_tokens ?? 0;
  const completion = usage.output_tokens ?? 0;
  return {
    run_id: turnId,
    model,
    prompt_tokens: prompt,
    cached_prompt_tokens: usage.cache_read_tokens ?? 0,
    completion_tokens: completion,
    total_tokens: usage.total_tokens ?? prompt + completion,
  };
}
