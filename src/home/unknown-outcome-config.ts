/**
 * The `onUnknownOutcome` section of config.json: `{"run_command": "ask", "*": "tell_model"}`.
 * Each key is a tool's name (`*`: every tool not named), each value `tell_model` (the call gets
 * the "outcome unknown" result and the model decides; the default) or `ask` (the call waits for
 * a person's `retry`, `skip` or `done`). See model/unknown-outcome.ts.
 *
 * Boundary rule: the section's format only; recovery (daemon/turn/turn-recovery.ts) applies it.
 */
import { approvalPolicyLimits } from "../api/approval-policy-limits.js";
import {
  type UnknownOutcomeAction,
  type UnknownOutcomePolicy,
  unknownOutcomeActions,
} from "../model/unknown-outcome.js";

/** Most tools the section may name (as many as an approval policy's rules). */
const maxTools = approvalPolicyLimits.rules;

/** Validates the `onUnknownOutcome` value; `fail` throws with the reason. */
export function parseUnknownOutcomeConfig(
  value: unknown,
  fail: (reason: string) => never,
): UnknownOutcomePolicy {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail(`"onUnknownOutcome" must be an object of tool names (or "*") to "tell_model" or "ask"`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > maxTools) fail(`"onUnknownOutcome" may name at most ${maxTools} tools`);
  // Null prototype: a tool named "__proto__" stays a plain key.
  const policy: Record<string, UnknownOutcomeAction> = Object.create(null);
  for (const [tool, action] of entries) {
    if (tool.length === 0 || tool.length > approvalPolicyLimits.tool)
      fail(`"onUnknownOutcome": a tool name must be 1-${approvalPolicyLimits.tool} characters`);
    if (!unknownOutcomeActions.includes(action as UnknownOutcomeAction)) {
      fail(
        `"onUnknownOutcome.${tool}" must be one of ${unknownOutcomeActions.join(", ")} (got ${JSON.stringify(action)})`,
      );
    }
    policy[tool] = action as UnknownOutcomeAction;
  }
  return policy;
}
