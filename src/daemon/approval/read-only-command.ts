/**
 * Whether a `run_command` command only reads: every simple command in it runs a read-only
 * program (read-only-programs.ts) with arguments that keep it so, and nothing in it writes,
 * redirects, substitutes or runs anything else. In `ask` mode such a command runs without
 * asking (see approval-mode.ts).
 *
 * What counts, decided on the parse (shell-syntax.ts), never on the text:
 * - statements may be joined by `;`, newlines, `&&`, `||` and `|` when every part is read-only
 *   (each part only reads, so together they only read); `|&`, `&` (background), `!`, `coproc`,
 *   subshells, groups, loops, functions and tests are not;
 * - no redirection of any kind (`>`, `>>`, `<`, `2>&1`, here-documents), no variable
 *   assignment, and no expansion in any word: parameter (even a plain `$HOME`, whose value could
 *   be an option), command or process substitution, arithmetic, ANSI-C quotes, braces;
 * - a command that does not parse is not read-only.
 *
 * Boundary rule: pure; the approval policy decides what a read-only command is allowed to do.
 */

import { unreachable } from "../../model/unreachable.js";
import { argumentProblem, readOnlyPrograms } from "./read-only-programs.js";
import { parseShell, type ShellCommand, type ShellStatement, type ShellWord } from "./shell-syntax.js";

/** What the classifier says of a command: read-only, or why not. */
export type CommandClass =
  | { readonly readOnly: true }
  | { readonly readOnly: false; readonly reason: string };

/** Longer commands are not parsed (they are asked): a bound on the parser's work per call. */
export const maxClassifiedLength = 16 * 1024;

/**
 * The latest verdicts, by command: a call is judged twice (when its response is committed and
 * before it runs) and a parse costs a few hundred µs, so the second judgement reuses the first.
 */
const recentVerdicts = new Map<string, CommandClass>();
const recentVerdictsKept = 256;

/** Whether `command` only reads, and if not, why. */
export function classifyCommand(command: string): CommandClass {
  const recent = recentVerdicts.get(command);
  if (recent !== undefined) return recent;
  const verdict = classifyUncached(command);
  if (recentVerdicts.size >= recentVerdictsKept) {
    const oldest = recentVerdicts.keys().next().value;
    if (oldest !== undefined) recentVerdicts.delete(oldest);
  }
  recentVerdicts.set(command, verdict);
  return verdict;
}

/**
 * A plain first word (letters, digits, `.`, `_`, `-`, then a blank, an operator or the end):
 * when it names no read-only program, the first command of the line is not one, whatever the
 * rest says, so the parse (a few hundred µs) is skipped. Anything else (a quote, a path, an
 * assignment) goes to the parser. This can only say "not read-only", never the opposite.
 */
const plainFirstWord = /^[ \t]*([A-Za-z0-9._-]+)(?=[ \t;&|)]|$)/;

/** `classifyCommand` without its memory of recent verdicts (what a new command costs). */
export function classifyUncached(command: string): CommandClass {
  if (command.length > maxClassifiedLength) return notReadOnly("the command is too long to classify");
  const firstWord = plainFirstWord.exec(command)?.[1];
  if (firstWord !== undefined && !readOnlyPrograms.has(firstWord)) {
    return notReadOnly(`${JSON.stringify(firstWord)} is not a read-only program`);
  }
  const parsed = parseShell(command);
  if (!parsed.ok) return notReadOnly(`it does not parse: ${parsed.error}`);
  if (parsed.statements.length === 0) return notReadOnly("it runs nothing");
  for (const statement of parsed.statements) {
    const problem = statementProblem(statement);
    if (problem !== null) return notReadOnly(problem);
  }
  return { readOnly: true };
}

function notReadOnly(reason: string): CommandClass {
  return { readOnly: false, reason };
}

function statementProblem(statement: ShellStatement): string | null {
  if (statement.redirects > 0) return "it redirects";
  if (statement.background) return "it runs in the background";
  if (statement.negated) return "it negates a status";
  if (statement.coprocess) return "it starts a coprocess";
  return commandProblem(statement.command);
}

function commandProblem(command: ShellCommand): string | null {
  switch (command.kind) {
    case "other":
      return `it uses ${command.node}`;
    case "binary":
      if (command.operator === "|&") return "it redirects errors into a pipe";
      return statementProblem(command.left) ?? statementProblem(command.right);
    case "simple":
      return simpleCommandProblem(command.assignments, command.words);
    default:
      unreachable(command, "unknown shell command");
  }
}

function simpleCommandProblem(assignments: number, words: readonly ShellWord[]): string | null {
  if (assignments > 0) return "it sets a variable";
  const literals: Extract<ShellWord, { kind: "literal" }>[] = [];
  for (const word of words) {
    if (word.kind === "expanded") return `it expands ${word.part}`;
    literals.push(word);
  }
  const [program, ...args] = literals;
  if (program === undefined) return "it runs nothing";
  const rule = program.glob ? undefined : readOnlyPrograms.get(program.text);
  if (rule === undefined) return `${JSON.stringify(program.text)} is not a read-only program`;
  return argumentProblem(program.text, rule, args);
}
