/**
 * What the approval policy says about one tool call: allow it, ask a person, or deny it, and
 * which rule said so.
 *
 * A session's policy is made of layers: config.json's top-level `approvalPolicy`, its profile's,
 * the session's own (set at creation or changed later) and the rules remembered from "always"
 * answers. When none of the first three is set, the built-in policy applies instead of them.
 * Every matching rule of every layer counts and the strictest wins (deny, then ask, then allow),
 * so layers and rule order never change the outcome; when no rule matches, the most specific
 * `default` applies (session, then profile, then config.json, else "ask"). Whatever the rules
 * say, a file tool's path outside the workspace is denied.
 *
 * Boundary rule: pure functions of the layers and the call; the daemon reads the layers.
 */
import path from "node:path";
import type {
  ApprovalAction,
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalRule,
  MatchedRule,
  RuleSource,
} from "../../model/approval-policy.js";
import { commandParts, shellOperatorsIn } from "./shell-command.js";
import { literalPattern, matchesWildcard } from "./wildcard-pattern.js";

/**
 * The policy when nothing is set: reading, searching and keeping the plan allowed; writing,
 * running and fetching (MCP tools included) asked.
 */
export const builtinPolicy: Readonly<ApprovalPolicy> = Object.freeze({
  default: "ask" as const,
  rules: [
    { tool: "read_file", action: "allow" as const },
    { tool: "list_files", action: "allow" as const },
    { tool: "grep", action: "allow" as const },
    { tool: "glob", action: "allow" as const },
    { tool: "todo_write", action: "allow" as const },
  ],
});

/** The built-in tool that asks the user a question; it is always asked, never evaluated. */
export const askUserToolName = "ask_user";

/** The built-in tools whose `path` argument names a file or directory of the workspace. */
const fileTools: ReadonlySet<string> = new Set([
  "read_file",
  "write_file",
  "edit_file",
  "list_files",
  "grep",
  "glob",
]);

/** The layers of one session's policy, most general first. */
export interface PolicyLayers {
  config?: ApprovalPolicy | undefined;
  profile?: ApprovalPolicy | undefined;
  session?: ApprovalPolicy | null | undefined;
  remembered: readonly ApprovalRule[];
}

/** A call to judge: its tool, its arguments (a JSON object) and the session's workspace. */
export interface CallToJudge {
  tool: string;
  args: Readonly<Record<string, unknown>>;
  workspace: string;
}

const strictness: Record<ApprovalAction, number> = { allow: 0, ask: 1, deny: 2 };

/** The rule that decides `call` under `layers`. */
export function judgeCall(layers: PolicyLayers, call: CallToJudge): MatchedRule {
  const subjectText = subjectOf(call);
  if (subjectText === null) return { source: "workspace", tool: call.tool, pattern: null, action: "deny" };
  const subject = new Subject(subjectText);
  let best: MatchedRule | null = null;
  for (const [source, rules] of ruleSets(layers)) {
    for (const rule of rules) {
      if (best !== null && strictness[rule.action] <= strictness[best.action]) continue;
      if (!ruleMatches(rule, call.tool, subject)) continue;
      best = { source, tool: rule.tool, pattern: rule.pattern ?? null, action: rule.action };
      if (best.action === "deny") return best;
    }
  }
  return best ?? defaultRule(layers);
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
  decision: ApprovalDecision,
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
  if (fileTools.has(call.tool)) {
    return typeof call.args.path === "string" ? workspacePath(call.args.path, call.workspace) : ".";
  }
  return JSON.stringify(call.args);
}

/** A short human description of a matched rule, e.g. `run_command "rm *" → deny (config)`. */
export function describeRule(rule: MatchedRule): string {
  if (rule.source === "workspace") return "the path lies outside the workspace";
  if (rule.source === "ask_user") return "a question to the user";
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
