/** How hard a model should think: an effort level (OpenAI style) or a token budget (Anthropic/Gemini style). */
export type ReasoningControl =
  | { effort: "minimal" | "low" | "medium" | "high" | "xhigh" }
  | { budget_tokens: number };

/**
 * Sampling and length settings for a request. Absent fields mean "provider default".
 * Persisted verbatim in the log (snake_case, see items.ts).
 */
export interface RequestConfig {
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  reasoning?: ReasoningControl;
}

/** The empty config: every setting at the provider's default. */
export function defaultRequestConfig(): RequestConfig {
  return {};
}
