/**
 * A tool call that waits for approval, shown to the person who may answer it: what the agent
 * wants to do (the command, a diff for file edits and for a whole `apply_patch`, the question of `ask_user`, else the
 * arguments), which rule asked, and the keys to answer with; and the reading of that answer.
 *
 * Boundary rule: pure formatting and parsing. Reading the workspace file a diff needs is the
 * caller's (`read`); so are reading the answer and sending it.
 */
import type { ApprovalAnswerBody, PendingApproval } from "../../api/approvals.js";
import { toolArgumentsObject } from "../../model/tool-arguments.js";
import { patchFileEdits } from "./patch-diff.js";
import type { Paint } from "./terminal.js";
import { clip, oneLine } from "./text-shape.js";
import { fileEditOf, unifiedDiffLines } from "./unified-diff.js";

/** The lines that present `request` (without the question line). */
export function approvalRequestLines(
  paint: Paint,
  request: PendingApproval,
  read: (path: string) => string | null,
  columns = 100,
): string[] {
  const args = toolArgumentsObject(request.arguments);
  if (request.tool === "ask_user") {
    const question = typeof args?.question === "string" ? args.question : request.arguments;
    return [`${paint.bold(paint.magenta("?"))} ${paint.bold("the agent asks:")} ${question}`];
  }
  const lines = [
    request.kind === "unknown_outcome"
      ? `${paint.yellow("⚠")} ${paint.bold(request.tool)} ${paint.dim(`was cut short by a daemon restart; did it run? (call ${request.call_id})`)}`
      : `${paint.yellow("⚠")} ${paint.bold(request.tool)} ${paint.dim(`wants approval (${ruleText(request)}; call ${request.call_id})`)}`,
  ];
  if (request.truncated !== undefined) {
    lines.push(
      paint.dim(`  arguments too large to show here (${request.truncated.arguments} bytes); see skein show`),
    );
    return lines;
  }
  const edits = request.tool === "apply_patch" ? patchFileEdits(args, read) : null;
  if (edits !== null) {
    const diff = edits.flatMap((edit) => unifiedDiffLines(paint, edit));
    return [...lines, ...diff.map((line) => `  ${line}`)];
  }
  const edit = fileEditOf(request.tool, args, read);
  if (edit !== null) return [...lines, ...unifiedDiffLines(paint, edit).map((line) => `  ${line}`)];
  if (request.tool === "run_command" && typeof args?.command === "string") {
    return [
      ...lines,
      ...args.command.split("\n").map((line, i) => `  ${paint.bold(i === 0 ? "$" : ">")} ${line}`),
    ];
  }
  const shown = args === null ? request.arguments : JSON.stringify(args, null, 2);
  return [
    ...lines,
    ...shown
      .split("\n")
      .slice(0, 40)
      .map((line) => `  ${clip(line, columns - 2)}`),
  ];
}

/** The question line after a request: what to type. */
export function approvalQuestion(paint: Paint, request: PendingApproval): string {
  if (request.tool === "ask_user") return `${paint.bold("your answer")} ${paint.dim("(Ctrl-D declines)")} › `;
  if (request.kind === "unknown_outcome") {
    return `${paint.bold("outcome?")} ${paint.dim("[r]etry [s]kip (it did not run) [d]one (it ran), or d: TEXT, its result")} › `;
  }
  return `${paint.bold("allow?")} ${paint.dim("[y]es [n]o [a]lways, or a message to deny with")} › `;
}

/**
 * What a typed line says of a call whose outcome is unknown: `r`/`retry`, `s`/`skip`, `d`/`done`,
 * or `d: TEXT` (`done: TEXT`), done with TEXT as its result; anything else answers nothing.
 */
function parseOutcomeAnswer(text: string): ApprovalAnswerBody | null {
  const withResult = /^(?:d|done)\s*:\s*(.+)$/is.exec(text);
  if (withResult !== null) return { decision: "done", message: withResult[1]! };
  switch (text.toLowerCase()) {
    case "r":
    case "retry":
      return { decision: "retry" };
    case "s":
    case "skip":
      return { decision: "skip" };
    case "d":
    case "done":
      return { decision: "done" };
    default:
      return null;
  }
}

/**
 * What a typed line answers: `y`/`yes` allow, `n`/`no` deny, `a`/`always` allow and remember,
 * any other text denies with it as the message to the model; an empty line answers nothing.
 * For `ask_user` any non-empty line is the answer; for an unknown outcome see `parseOutcomeAnswer`.
 */
export function parseApprovalAnswer(request: PendingApproval, line: string): ApprovalAnswerBody | null {
  const text = line.trim();
  if (text === "") return null;
  if (request.tool === "ask_user") return { decision: "allow", message: line };
  if (request.kind === "unknown_outcome") return parseOutcomeAnswer(text);
  switch (text.toLowerCase()) {
    case "y":
    case "yes":
      return { decision: "allow" };
    case "n":
    case "no":
      return { decision: "deny" };
    case "a":
    case "always":
      return { decision: "allow", remember: true };
    default:
      return { decision: "deny", message: text };
  }
}

/** One line summing up a request (for lists and notices). */
export function approvalSummary(request: PendingApproval, width = 60): string {
  return `${request.tool} ${clip(oneLine(requestSubject(request)), width)}`;
}

/** What a request is about: its command, question or path, else its arguments. */
export function requestSubject(request: PendingApproval): string {
  const args = toolArgumentsObject(request.arguments);
  for (const key of ["command", "question", "path"]) {
    const value = args?.[key];
    if (typeof value === "string") return value;
  }
  return request.arguments;
}

function ruleText(request: PendingApproval): string {
  const { rule } = request;
  if (rule.source === "mode") return "the session's approval mode";
  if (rule.tool === null) return `default of the ${rule.source} policy`;
  return `rule ${rule.tool}${rule.pattern === null ? "" : ` ${JSON.stringify(rule.pattern)}`} of the ${rule.source} policy`;
}
