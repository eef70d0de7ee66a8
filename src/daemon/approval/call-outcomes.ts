/**
 * What the loop does with a tool call the approval gate has answered or refused, and what the
 * log alone says about a call that has no result yet. A call is known never to have run when
 * its logged answer gave it a result instead (any deny, and any answer to an `ask_user`
 * question, whose result is the answer), when its arguments are no JSON object (the loop
 * refuses it before asking anyone), or when it is a file tool whose path lies outside the
 * workspace (denied whatever the policy says). Every other call may have run: only a result
 * in the log could say how it ended.
 *
 * Boundary rule: pure functions of the call, the replayed answers and the workspace.
 */
import type { ResolvedApproval } from "../../log/restored-state.js";
import type { MatchedRule } from "../../model/approval-policy.js";
import { type ToolCallItem, type ToolResultItem, toolResult } from "../../model/items.js";
import { toolArgumentsObject } from "../../model/tool-arguments.js";
import type { BeforeToolCallAction } from "../../worker/index.js";
import { askUserToolName, describeRule, subjectOf } from "./approval-policy.js";
import { questionOf } from "./ask-user-tool.js";

/** Why a turn stopped with calls waiting: they are denied, and this is what the model reads. */
export const notRunText: Record<"interrupt" | "turn_end", string> = {
  interrupt: "Tool call not run: the user interrupted the turn while it waited for approval.",
  turn_end: "Tool call not run: the turn ended while it waited for approval.",
};

/** The result of an `ask_user` call without a question (it is never asked). */
export const questionMissingText = "ask_user was not run: it needs a non-empty `question`.";

/** What the model reads of a call a person said did not run (`skip`). */
export const skippedText =
  "The Skein daemon restarted while this tool call was in flight; a person checked and says it did not run. It was not run again.";

/** What the model reads of a call a person said ran (`done`) without giving its result. */
export const doneText =
  "The Skein daemon restarted while this tool call was in flight; a person checked and says it completed. Its output was not kept.";

/** What the loop does with an answered call. */
export function answeredAction(call: ToolCallItem, answer: ResolvedApproval): BeforeToolCallAction {
  switch (answer.decision) {
    case "retry":
      return { action: "continue" };
    case "skip":
      return {
        action: "result",
        result: { output: withMessage(skippedText, answer.message), is_error: true },
      };
    case "done":
      return { action: "result", result: { output: answer.message ?? doneText, is_error: false } };
    default:
      break;
  }
  if (call.name === askUserToolName) {
    if (answer.decision === "allow")
      return { action: "result", result: { output: answer.message ?? "", is_error: false } };
    const said = answer.message === null ? "" : ` They said: ${answer.message}`;
    return { action: "result", result: { output: `The user declined to answer.${said}`, is_error: true } };
  }
  if (answer.decision === "allow") return { action: "continue" };
  return { action: "result", result: { output: deniedText(answer), is_error: true } };
}

/** The result of a call the policy denied. */
export function deniedByPolicy(rule: MatchedRule): string {
  if (rule.source === "workspace")
    return "Tool call denied: its path lies outside the workspace; it was not run.";
  if (rule.source === "mode") {
    return "Tool call denied: the session's approval mode (read-only) does not allow it; it was not run.";
  }
  return `Tool call denied by the approval policy (${describeRule(rule)}); it was not run.`;
}

/** What the replayed answers of a session say about its calls. */
export type AnswersByCall = Readonly<Record<string, ResolvedApproval>>;

/**
 * The result `call` got or would get without running, as far as the log tells: its answer's
 * result, or its refusal (arguments that are no object, a file path outside `workspace`, an
 * `ask_user` call without a question); null when the call may have run. Without `workspace`
 * the path rule is not applied.
 */
export function knownResult(
  call: ToolCallItem,
  answers: AnswersByCall,
  workspace: string | null,
): ToolResultItem | null {
  const answer = Object.hasOwn(answers, call.call_id) ? answers[call.call_id] : undefined;
  if (answer !== undefined) {
    const action = answeredAction(call, answer);
    return action.action === "result"
      ? toolResult(call.call_id, action.result.output, action.result.is_error === true)
      : null;
  }
  const args = toolArgumentsObject(call.arguments);
  if (args === null) {
    return toolResult(
      call.call_id,
      `Tool ${call.name} was not run: the arguments were not a JSON object.`,
      true,
    );
  }
  if (call.name === askUserToolName) {
    // One with a question was asked in the commit that holds the call: it has an answer or waits.
    return questionOf(args) === null ? toolResult(call.call_id, questionMissingText, true) : null;
  }
  if (workspace !== null && subjectOf({ tool: call.name, args, workspace }) === null) {
    const rule: MatchedRule = { source: "workspace", tool: call.name, pattern: null, action: "deny" };
    return toolResult(call.call_id, deniedByPolicy(rule), true);
  }
  return null;
}

function withMessage(text: string, message: string | null): string {
  return message === null ? text : `${text} Their message: ${message}`;
}

function deniedText(answer: ResolvedApproval): string {
  switch (answer.by) {
    case "client":
      return answer.message === null
        ? "The user denied this tool call; it was not run."
        : `The user denied this tool call; it was not run. Their message: ${answer.message}`;
    case "rule":
      return "Tool call denied by a rule the user set in this session; it was not run.";
    case "interrupt":
      return notRunText.interrupt;
    case "turn_end":
      return notRunText.turn_end;
    default: {
      const unknown: never = answer.by;
      return `Tool call denied (${String(unknown)}); it was not run.`;
    }
  }
}
