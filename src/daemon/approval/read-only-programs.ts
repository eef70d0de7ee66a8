/**
 * The programs a command may run and still count as read-only, and what each must not be given.
 * The list is documented in docs/http-api.md ("Read-only commands"); keep the two together.
 *
 * Boundary rule: data plus one check over literal words; the words come from a real parse
 * (shell-syntax.ts), never from splitting text.
 */
import type { ShellWord } from "./shell-syntax.js";

/** What a program may be given for a call of it to stay read-only. */
export interface ProgramRule {
  /**
   * Whether none of its options writes or runs anything: then a glob that may become any file
   * name (`*`, which matches a file called `-o` too) is harmless. Otherwise a glob must start
   * with a literal character.
   */
  readonly safeOptions: boolean;
  /** The sub-commands allowed (the word right after the program), when it has sub-commands. */
  readonly subcommands?: readonly string[];
  /**
   * Long options it must not be given. GNU tools and git also take any unambiguous abbreviation
   * of a long option, so every prefix of one (`--outp`) is refused as well.
   */
  readonly forbiddenLong?: readonly string[];
  /** Short options it must not be given, alone or in a cluster (`-ro`). */
  readonly forbiddenShort?: string;
  /** Words it must not be given anywhere (find's actions). */
  readonly forbiddenWords?: readonly string[];
  /** The most operands it takes (uniq writes to its second), and then no glob at all. */
  readonly maxOperands?: number;
}

const safe: ProgramRule = { safeOptions: true };

/** The read-only programs, by the name the command gives them (a path such as `/bin/ls` is not one). */
export const readOnlyPrograms: ReadonlyMap<string, ProgramRule> = new Map<string, ProgramRule>([
  ["basename", safe],
  ["cat", safe],
  ["cd", safe],
  ["cut", safe],
  ["dirname", safe],
  ["du", safe],
  ["echo", safe],
  ["egrep", safe],
  ["fgrep", safe],
  ["grep", safe],
  ["head", safe],
  ["ls", safe],
  ["nl", safe],
  ["pwd", safe],
  ["realpath", safe],
  ["stat", safe],
  ["tail", safe],
  ["wc", safe],
  ["which", safe],
  ["file", { safeOptions: false, forbiddenShort: "C", forbiddenLong: ["--compile"] }],
  [
    "find",
    {
      safeOptions: false,
      forbiddenWords: [
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
        "-delete",
        "-fprint",
        "-fprint0",
        "-fprintf",
        "-fls",
      ],
    },
  ],
  [
    "git",
    {
      safeOptions: false,
      subcommands: ["status", "diff", "log", "show"],
      forbiddenLong: ["--output", "--ext-diff"],
    },
  ],
  ["rg", { safeOptions: false, forbiddenLong: ["--pre", "--hostname-bin"] }],
  [
    "sort",
    {
      safeOptions: false,
      forbiddenShort: "oT",
      forbiddenLong: ["--output", "--compress-program", "--temporary-directory"],
    },
  ],
  ["tree", { safeOptions: false, forbiddenShort: "oR", forbiddenLong: ["--output"] }],
  ["uniq", { safeOptions: false, maxOperands: 1 }],
]);

/** Why `args` (the words after the program) make a call of a program under `rule` not read-only; null when they do not. */
export function argumentProblem(
  program: string,
  rule: ProgramRule,
  args: readonly Extract<ShellWord, { kind: "literal" }>[],
): string | null {
  let rest = args;
  if (rule.subcommands !== undefined) {
    const subcommand = args[0];
    if (subcommand === undefined || subcommand.glob || !rule.subcommands.includes(subcommand.text)) {
      return `${program} runs only as ${rule.subcommands.map((name) => `${program} ${name}`).join(", ")}`;
    }
    rest = args.slice(1);
  }
  let operands = 0;
  for (const word of rest) {
    if (word.glob && (rule.maxOperands !== undefined || (word.leadingGlob && !rule.safeOptions))) {
      return `the glob ${JSON.stringify(word.text)} could name an option of ${program}`;
    }
    const problem = optionProblem(program, rule, word.text);
    if (problem !== null) return problem;
    if (!word.text.startsWith("-") || word.text === "-") operands++;
  }
  if (rule.maxOperands !== undefined && operands > rule.maxOperands) {
    return `${program} writes to its operand ${rule.maxOperands + 1}`;
  }
  return null;
}

function optionProblem(program: string, rule: ProgramRule, text: string): string | null {
  if (rule.forbiddenWords?.includes(text)) return `${program} ${text} writes or runs a program`;
  if (text.startsWith("--") && text.length > 2) {
    const name = text.split("=", 1)[0]!;
    const forbidden = rule.forbiddenLong?.find((option) => option.startsWith(name));
    if (forbidden !== undefined) return `${program} ${forbidden} writes or runs a program`;
    return null;
  }
  if (text.startsWith("-") && text.length > 1 && rule.forbiddenShort !== undefined) {
    const letter = [...text.slice(1)].find((character) => rule.forbiddenShort!.includes(character));
    if (letter !== undefined) return `${program} -${letter} writes or runs a program`;
  }
  return null;
}
