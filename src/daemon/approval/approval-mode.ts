/**
 * How a session's approval mode combines with the rules (docs/http-api.md, "Approval modes").
 *
 * The rules are what a person wrote for this workspace or profile, so they keep their word; the
 * mode only says what happens where they are silent:
 * 1. an explicit deny rule (config.json, profile, session, remembered) always wins;
 * 2. `read-only` then refuses every edit, command, network and MCP call, even one an allow rule
 *    covers: the mode is a ceiling a person sets for a reason ("just look");
 * 3. any other explicit rule that matches (ask or allow) decides;
 * 4. otherwise the mode's own answer for the tool's kind replaces the policy's default and the
 *    built-in rules: `auto-edit` allows reads and edits, `full-auto` everything;
 * 5. where the mode has no answer (`ask`, and commands in `auto-edit`), the policy's default
 *    applies as before, except that a `run_command` it would ask for runs at once when the
 *    command only reads (read-only-command.ts).
 * `ask_user` is never judged here: it always asks. A path outside the workspace is denied before
 * any of this.
 *
 * Boundary rule: pure; approval-policy.ts finds the rule, this decides what the mode makes of it.
 */
import type { ApprovalAction, ApprovalMode, MatchedRule } from "../../model/approval-policy.js";
import { approvalTraitsOf, type ToolApprovalKind } from "../../tools/approval-kind.js";
import { classifyCommand } from "./read-only-command.js";

/** The mode of a session that never chose one. */
export const defaultApprovalMode: ApprovalMode = "ask";

type ModeAnswers = Partial<Record<ToolApprovalKind, ApprovalAction>>;

/** Each mode's own answer per kind of tool; a kind left out keeps the policy's answer. */
const modeAnswers: Record<ApprovalMode, ModeAnswers> = {
  "read-only": { edit: "deny", command: "deny", network: "deny", external: "deny" },
  ask: {},
  "auto-edit": { read: "allow", edit: "allow" },
  "full-auto": { read: "allow", edit: "allow", command: "allow", network: "allow", external: "allow" },
};

/** The kinds `read-only` refuses whatever the allow rules say. */
const refusedWhenReadOnly: ReadonlySet<ToolApprovalKind> = new Set([
  "edit",
  "command",
  "network",
  "external",
]);

/** A call as the mode sees it. */
export interface ModeCall {
  tool: string;
  args: Readonly<Record<string, unknown>>;
}

/**
 * The rule that decides `call` under `mode`, given the strictest rule that matched it (null:
 * none) and the policy's default (computed only when needed).
 */
export function ruleUnderMode(
  mode: ApprovalMode,
  call: ModeCall,
  matched: MatchedRule | null,
  policyDefault: () => MatchedRule,
): MatchedRule {
  if (matched?.action === "deny") return matched;
  const { kind } = approvalTraitsOf(call.tool);
  if (mode === "read-only" && refusedWhenReadOnly.has(kind)) return modeRule(call.tool, "deny");
  if (matched !== null && matched.source !== "builtin") return matched;
  const answer = modeAnswers[mode][kind];
  if (answer !== undefined) return modeRule(call.tool, answer);
  const fallback = matched ?? policyDefault();
  if (fallback.action === "ask" && kind === "command" && readOnlyCommand(call.args)) {
    return { source: "read_only_command", tool: call.tool, pattern: null, action: "allow" };
  }
  return fallback;
}

function modeRule(tool: string, action: ApprovalAction): MatchedRule {
  return { source: "mode", tool, pattern: null, action };
}

function readOnlyCommand(args: Readonly<Record<string, unknown>>): boolean {
  return typeof args.command === "string" && classifyCommand(args.command).readOnly;
}
