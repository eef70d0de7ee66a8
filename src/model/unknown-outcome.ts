/**
 * What happens to a tool call a crash cut short (its outcome unknown): config.json's
 * `"onUnknownOutcome": {"<tool name or *>": "tell_model" | "ask"}`. `tell_model` (the default
 * for every tool) gives the call the "outcome unknown" result and the model decides; `ask`
 * leaves the call waiting like an approval until a person answers `retry`, `skip` or `done`.
 *
 * Boundary rule: plain data and the one lookup every layer means the same by.
 */
import type { UnknownOutcomeDecision } from "./approval-policy.js";

/** What the policy says about one tool. */
export type UnknownOutcomeAction = "tell_model" | "ask";

/** Every action a tool may be given. */
export const unknownOutcomeActions: readonly UnknownOutcomeAction[] = ["tell_model", "ask"];

/** Every answer an unknown-outcome request takes. */
export const unknownOutcomeDecisions: readonly UnknownOutcomeDecision[] = ["retry", "skip", "done"];

/** The policy: an action per tool name, `*` for every tool not named. */
export type UnknownOutcomePolicy = Readonly<Record<string, UnknownOutcomeAction>>;

/** The key that names every tool not named on its own. */
const anyToolKey = "*";

/**
 * The action for `tool` and the key that gave it (its own name, else `*`); `tell_model` with a
 * null key when neither is set.
 */
export function unknownOutcomeActionFor(
  policy: UnknownOutcomePolicy | undefined,
  tool: string,
): { action: UnknownOutcomeAction; key: string | null } {
  if (policy !== undefined) {
    for (const key of [tool, anyToolKey]) {
      if (Object.hasOwn(policy, key)) return { action: policy[key]!, key };
    }
  }
  return { action: "tell_model", key: null };
}
