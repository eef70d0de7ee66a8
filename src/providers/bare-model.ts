/**
 * A model name as the tables match it: without a provider prefix ("openai/gpt-5",
 * "models/gemini-2.5-pro") and lower-cased.
 *
 * Boundary rule: a pure function of the name; the capability and limit tables both use it.
 */

/** `model` without its provider prefix, lower-cased. */
export function bareModel(model: string): string {
  const lower = model.toLowerCase();
  return lower.slice(lower.lastIndexOf("/") + 1);
}
