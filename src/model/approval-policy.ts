/**
 * Approval policies: which tool calls run at once, which wait for a person's answer, and which
 * are refused. Plain data shared by the log (which records policies, requests and decisions)
 * and the HTTP contract (which carries them).
 *
 * Boundary rule: types only; the daemon evaluates policies, the contract validates them.
 */

/** What a rule (or a policy's default) says about a call. */
export type ApprovalAction = "allow" | "ask" | "deny";

/** One rule: a tool name (`*` matches any run of characters) and an optional argument pattern. */
export interface ApprovalRule {
  tool: string;
  /** Matched against the call's subject (a command, a path, or the arguments as JSON); absent: any. */
  pattern?: string;
  action: ApprovalAction;
}

/**
 * How much a session's agent may do without asking, on top of the rules (docs/http-api.md,
 * "Approval modes"): `read-only` refuses every write, command, network and MCP call; `ask` is the
 * policy as configured; `auto-edit` also allows file edits; `full-auto` allows everything the
 * sandbox allows. Explicit deny rules always win.
 */
export type ApprovalMode = "read-only" | "ask" | "auto-edit" | "full-auto";

/** A policy: its rules and what applies when none matches. Both optional (see the docs for merging). */
export interface ApprovalPolicy {
  default?: ApprovalAction;
  rules?: ApprovalRule[];
}

/** Where the rule that decided a call came from. */
export type RuleSource =
  /** The built-in policy (no policy set anywhere). */
  | "builtin"
  /** config.json's top-level `approvalPolicy`. */
  | "config"
  /** The `approvalPolicy` of the session's provider profile. */
  | "profile"
  /** The session's own policy (set at creation or changed later). */
  | "session"
  /** A rule remembered from an answer ("always"). */
  | "remembered"
  /** A file tool's path lies outside the workspace: always denied. */
  | "workspace"
  /** `ask_user` always asks. */
  | "ask_user"
  /** The session's approval mode (no explicit rule matched, or `read-only` refused). */
  | "mode"
  /** A `run_command` command that only reads (the read-only command classifier). */
  | "read_only_command"
  /**
   * config.json's `onUnknownOutcome` says `ask` for the tool of a call a crash cut short: a
   * person says whether it runs again (see model/unknown-outcome.ts).
   */
  | "unknown_outcome";

/** The rule that decided a call: `tool` and `pattern` null when the policy's default applied. */
export interface MatchedRule {
  source: RuleSource;
  tool: string | null;
  pattern: string | null;
  action: ApprovalAction;
}

/** A person's (or a rule's) answer to a request to run a call. */
export type ApprovalVerdict = "allow" | "deny";

/**
 * A person's answer to a call whose outcome a crash left unknown: run it again (`retry`), tell
 * the model it did not run (`skip`), or tell the model it ran, with the person's text as its
 * result (`done`).
 */
export type UnknownOutcomeDecision = "retry" | "skip" | "done";

/** An answer to an approval request: a verdict, or (for an unknown outcome) what became of the call. */
export type ApprovalDecision = ApprovalVerdict | UnknownOutcomeDecision;

/**
 * Who resolved a request: a client through the approval route, a rule remembered from another
 * answer, an interrupt of the turn, or the end of the turn for another reason (nobody answered).
 */
export type ApprovalResolver = "client" | "rule" | "interrupt" | "turn_end";
