/**
 * What the approval policy says about one tool call: allow it, ask a person, or deny it, and
 * which rule said so.
 *
 * A session's policy is made of layers: config.json's top-level `approvalPolicy`, its profile's,
 * the session's own (set at creation or changed later) and the rules remembered from "always"
 * answers. When none of the first three is set, the built-in policy applies instead of them.
 * Every matching rule of every layer counts and the strictest wins (deny, then ask, then allow),
 * so layers and rule order never change the outcome; when no rule matches, the most specific
 * `default` applies (session, then profile, then config.json, else "ask"). The session's
 * approval mode then has its say (approval-mode.ts): explicit deny rules still win, the mode
 * replaces the default and the built-in rules. Whatever the rules and the mode say, a file
 * tool's path outside the workspace is denied.
 *
 * Boundary rule: pure functions of the layers and the call; the daemon reads the layers.
 */
import path from "node:path";
import type {
  ApprovalAction,
  ApprovalMode,
  ApprovalPolicy,
  ApprovalRule,
  ApprovalVerdict,
  MatchedRule,
  RuleSource,
} from "../../model/approval-policy.js";
import { approvalTraitsOf } from "../../tools/approval-kind.js";
import { defaultApprovalMode, ruleUnderMode } from "./approval-mode.js";
import { commandParts, shellOperatorsIn } from "./shell-command.js";
import { literalPattern, matchesWildcard } from "./wildcard-pattern.js";

/**
 * The policy when nothing is set: reading (and keeping a plan, and delegating with `task`)
 * allowed, writing and running (MCP tools included) asked.
 */
const builtinPolicy: Readonly<ApprovalPolicy> = Object.freeze({
  default: "ask" as const,
  rules: ["read_file", "list_files", "grep", "glob", "todo_write", "task"].map((tool) => ({
    tool,
    action: "allow" as const,
  })),
});

/**
 * The daemon's tool that delegates work to a child session (daemon/task/); allowed by the
 * built-in policy, and run again, not answered "outcome unknown", after a crash cut it short.
 */
export const taskToolName = "task";

/** The built-in tool that asks the user a question; it is always asked, never evaluated. */
export const askUserToolName = "ask_user";

/** The layers of one session's policy, most general first. */
export interface PolicyLayers {
  config?: ApprovalPolicy | undefined;
  profile?: ApprovalPolicy | undefined;
  session?: ApprovalPolicy | null | undefined;
  remembered: readonly ApprovalRule[];
  /** The session's approval mode (`ask` when absent). */
  mode?: ApprovalMode | undefined;
}

/** A call to judge: its tool, its arguments (a JSON object) and the session's workspace. */
export interface CallToJudge {
  tool: string;
  args: Readonly<Record<string, unknown>>;
  workspace: string;
}

const strictness: Record<ApprovalAction, number> = { allow: 0, ask: 1, deny: 2 };

/** The rule that decides `call` under `layers` and the session's mode. */
export function judgeCall(layers: PolicyLayers, call: CallToJudge): MatchedRule {
  const subjectText = subjectOf(call);
  if (subjectText === null) return { source: "workspace", tool: call.tool, pattern: null, action: "deny" };
  const matched = strictestRule(layers, call.tool, new Subject(subjectText));
  return ruleUnderMode(layers.mode ?? defaultApprovalMode, call, matched, () => defaultRule(layers));
}

/** The strictest rule of any layer that matches a call of `tool` on `subject`, or null. */
function strictestRule(layers: PolicyLayers, tool: string, subject: Subject): MatchedRule | null {
  let best: MatchedRule | null = null;
  for (const [source, rules] of ruleSets(layers)) {
    for (const rule of rules) {
      if (best !== null && strictness[rule.action] <= strictness[best.action]) continue;
      if (!ruleMatches(rule, tool, subject)) continue;
      best = { source, tool: rule.tool, pattern: rule.pattern ?? null, action: rule.action };
      if (best.action === "deny") return best;
    }
  }
  return best;
}

/** Whether `rule` covers a call of `tool` with `args` (ignoring the workspace check). */
export function ruleCovers(
  rule: ApprovalRule,
  tool: string,
  args: Readonly<Record<string, unknown>>,
): boolean {
  const subject = subjectOf({ tool, args, workspace: "/" });
  return subject !== null && ruleMatches(rule, tool, new Subject(subject));
}

/** A call's subject, with what command rules need of it worked out once (on first use). */
class Subject {
  #operators: Set<string> | null = null;
  #parts: string[] | null = null;

  constructor(readonly text: string) {}

  get operators(): Set<string> {
    this.#operators ??= shellOperatorsIn(this.text);
    return this.#operators;
  }

  get parts(): string[] {
    this.#parts ??= commandParts(this.text);
    return this.#parts;
  }
}

/**
 * The rule an "always" answer adds to the session: the same command for `run_command`, the
 * tool with any arguments for every other tool (a file tool still never leaves the workspace).
 */
export function rememberedRule(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  decision: ApprovalVerdict,
): ApprovalRule {
  if (tool === "run_command" && typeof args.command === "string") {
    return { tool, pattern: literalPattern(args.command), action: decision };
  }
  return { tool: literalPattern(tool), action: decision };
}

/**
 * What a rule's pattern is matched against: the command, the path relative to the workspace, or
 * the arguments as JSON; null for a file tool's path outside the workspace.
 */
export function subjectOf(call: CallToJudge): string | null {
  if (call.tool === "run_command") return typeof call.args.command === "string" ? call.args.command : "";
  if (approvalTraitsOf(call.tool).workspacePath) {
    return typeof call.args.path === "string" ? workspacePath(call.args.path, call.workspace) : ".";
  }
  return JSON.stringify(call.args);
}

/** A short human description of a matched rule, e.g. `run_command "rm *" → deny (config)`. */
export function describeRule(rule: MatchedRule): string {
  if (rule.source === "workspace") return "the path lies outside the workspace";
  if (rule.source === "ask_user") return "a question to the user";
  if (rule.source === "mode") return `${rule.tool ?? "the call"} → ${rule.action} (the approval mode)`;
  if (rule.source === "read_only_command") return "a read-only command → allow";
  const what =
    rule.tool === null
      ? "the default"
      : rule.pattern === null
        ? rule.tool
        : `${rule.tool} ${JSON.stringify(rule.pattern)}`;
  return `${what} → ${rule.action} (${rule.source})`;
}

function ruleSets(layers: PolicyLayers): Array<[RuleSource, readonly ApprovalRule[]]> {
  const sets: Array<[RuleSource, readonly ApprovalRule[]]> = [["remembered", layers.remembered]];
  if (!hasOwnPolicy(layers)) return [...sets, ["builtin", builtinPolicy.rules ?? []]];
  if (layers.session) sets.push(["session", layers.session.rules ?? []]);
  if (layers.profile) sets.push(["profile", layers.profile.rules ?? []]);
  if (layers.config) sets.push(["config", layers.config.rules ?? []]);
  return sets;
}

function defaultRule(layers: PolicyLayers): MatchedRule {
  const layered: Array<[RuleSource, ApprovalPolicy | null | undefined]> = hasOwnPolicy(layers)
    ? [
        ["session", layers.session],
        ["profile", layers.profile],
        ["config", layers.config],
      ]
    : [["builtin", builtinPolicy]];
  for (const [source, policy] of layered) {
    if (policy?.default !== undefined) return { source, tool: null, pattern: null, action: policy.default };
  }
  const mostSpecific = layered.find(([, policy]) => policy !== undefined && policy !== null)!;
  return { source: mostSpecific[0], tool: null, pattern: null, action: "ask" };
}

function hasOwnPolicy(layers: PolicyLayers): boolean {
  return layers.config !== undefined || layers.profile !== undefined || (layers.session ?? null) !== null;
}

/**
 * Whether a rule matches. For `run_command` an allow pattern (other than a lone `*`) never
 * covers a command that chains, pipes, substitutes or redirects where the pattern does not, so
 * `git status*` cannot allow `git status; rm -rf ~`; ask and deny patterns also match any part
 * of a chained command, so `rm *` catches `make && rm -rf build`.
 */
function ruleMatches(rule: ApprovalRule, tool: string, subject: Subject): boolean {
  if (!matchesWildcard(rule.tool, tool)) return false;
  const pattern = rule.pattern;
  if (pattern === undefined) return true;
  if (tool !== "run_command") return matchesWildcard(pattern, subject.text);
  if (rule.action === "allow") {
    if (pattern === "*") return true;
    for (const operator of subject.operators) if (!pattern.includes(operator)) return false;
    return matchesWildcard(pattern, subject.text);
  }
  return (
    matchesWildcard(pattern, subject.text) || subject.parts.some((part) => matchesWildcard(pattern, part))
  );
}

/**
 * A path argument relative to the workspace, normalised (`.` for the workspace itself), or
 * null when it names something outside (judged by its text alone).
 */
function workspacePath(value: string, workspace: string): string | null {
  const root = path.resolve(workspace);
  const resolved = path.isAbsolute(value) ? path.normalize(value) : path.join(root, value);
  if (resolved === root) return ".";
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  if (!resolved.startsWith(prefix)) return null;
  return resolved.slice(prefix.length).split(path.sep).join("/");
}
