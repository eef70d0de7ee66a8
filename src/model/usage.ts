/**
 * Token usage of one LLM request, normalized across providers:
 * `input_tokens` is the whole prompt, cached tokens included (Anthropic reports them apart;
 * adapters add them back), and `total_tokens` is input + output.
 */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
}

/** Merge two usage reports of the same request: each field takes the latest defined value. */
export function mergeUsage(earlier: Usage, later: Usage): Usage {
  const merged: Usage = { ...earlier };
  for (const key of Object.keys(later) as (keyof Usage)[]) {
    const value = later[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

/** Usage of two different requests added field by field (a field absent from both stays absent). */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = { ...a };
  for (const key of Object.keys(b) as (keyof Usage)[]) {
    const value = b[key];
    if (value !== undefined) sum[key] = (sum[key] ?? 0) + value;
  }
  return sum;
}
