/**
 * Validating an approval policy written by a person (config.json's `approvalPolicy`, top level or
 * per profile): `{"default"?: "allow"|"ask"|"deny", "rules"?: [{"tool", "pattern"?, "action"}]}`.
 *
 * Boundary rule: shape and bounds only; what a policy means for a call is the daemon's business.
 * The HTTP routes check the same bounds with their schemas (`approvalPolicyLimits`).
 */
import { approvalPolicyLimits } from "../api/approval-policy-limits.js";
import type { ApprovalAction, ApprovalPolicy, ApprovalRule } from "../model/approval-policy.js";
import { isWireObject, type WireObject } from "../providers/wire-json.js";

/** Every action a rule or a default may name. */
const approvalActions: readonly ApprovalAction[] = ["allow", "ask", "deny"];

/** A policy that cannot be used; the message names the field. */
export class ApprovalPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApprovalPolicyError";
  }
}

/** Check `value` is a policy and return a copy; throws ApprovalPolicyError naming the field at `where`. */
export function parseApprovalPolicy(value: unknown, where: string): ApprovalPolicy {
  const fail = (reason: string): never => {
    throw new ApprovalPolicyError(`${where}: ${reason}`);
  };
  const record = isWireObject(value) ? value : fail("must be an object with `default` and/or `rules`");
  for (const key of Object.keys(record)) {
    if (key !== "default" && key !== "rules") fail(`unknown field ${JSON.stringify(key)}`);
  }
  const policy: ApprovalPolicy = {};
  if (record.default !== undefined) policy.default = action(record.default, `"default"`, fail);
  if (record.rules !== undefined) {
    if (!Array.isArray(record.rules)) fail(`"rules" must be an array`);
    const rules = record.rules as unknown[];
    if (rules.length > approvalPolicyLimits.rules) {
      fail(`"rules" may hold at most ${approvalPolicyLimits.rules} rules`);
    }
    policy.rules = rules.map((rule, index) => parseRule(rule, `"rules"[${index}]`, fail));
  }
  return policy;
}

function parseRule(value: unknown, where: string, fail: (reason: string) => never): ApprovalRule {
  const record: WireObject = isWireObject(value)
    ? value
    : fail(`${where} must be an object {"tool", "pattern"?, "action"}`);
  for (const key of Object.keys(record)) {
    if (key !== "tool" && key !== "pattern" && key !== "action") {
      fail(`${where} has an unknown field ${JSON.stringify(key)}`);
    }
  }
  const tool = record.tool;
  if (typeof tool !== "string" || tool.length === 0 || tool.length > approvalPolicyLimits.tool) {
    fail(
      `${where}."tool" must be a tool name (or a pattern with *) of 1-${approvalPolicyLimits.tool} characters`,
    );
  }
  const rule: ApprovalRule = {
    tool: tool as string,
    action: action(record.action, `${where}."action"`, fail),
  };
  if (record.pattern !== undefined) {
    if (typeof record.pattern !== "string" || record.pattern.length > approvalPolicyLimits.pattern) {
      fail(`${where}."pattern" must be a string of at most ${approvalPolicyLimits.pattern} characters`);
    }
    rule.pattern = record.pattern as string;
  }
  return rule;
}

function action(value: unknown, where: string, fail: (reason: string) => never): ApprovalAction {
  if (typeof value !== "string" || !approvalActions.includes(value as ApprovalAction)) {
    fail(`${where} must be one of ${approvalActions.join(", ")}`);
  }
  return value as ApprovalAction;
}
