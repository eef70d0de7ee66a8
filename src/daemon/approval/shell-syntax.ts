/**
 * A shell command's structure, as a real shell parser (mvdan-sh, the JavaScript build of the Go
 * `mvdan.cc/sh` parser, in its bash dialect) reads it, reduced to what the read-only command
 * classifier needs: statements, the operators joining them, each simple command's words, and
 * whether anything is redirected, assigned, backgrounded or expanded.
 *
 * Boundary rule: a faithful reduction, never a guess. Whatever the reduction does not model (a
 * subshell, a loop, a function, `[[ … ]]`, …) becomes `other`, and any part of a word that the
 * shell would expand (a parameter, a command or process substitution, arithmetic, an ANSI-C
 * quote, a brace) makes the word `expanded`: the classifier refuses both. Bash is a superset of
 * the `/bin/sh` the tool runs, so a construct only bash knows is refused too rather than misread.
 */
import { createRequire } from "node:module";

/** A word of a simple command once quotes are removed, or a word the shell would expand. */
export type ShellWord =
  | {
      kind: "literal";
      /** The word's text after quote removal. */
      text: string;
      /** It holds an unquoted glob character (`*`, `?`, `[`): the shell may turn it into file names. */
      glob: boolean;
      /** It starts with an unquoted glob character: it may become any file name, `-o` included. */
      leadingGlob: boolean;
    }
  | { kind: "expanded"; part: string };

/** A command: a simple one, two statements joined by an operator, or something not modelled. */
export type ShellCommand =
  | { kind: "simple"; assignments: number; words: ShellWord[] }
  | { kind: "binary"; operator: BinaryOperator; left: ShellStatement; right: ShellStatement }
  | { kind: "other"; node: string };

/** The operators that join two statements into one. */
type BinaryOperator = "&&" | "||" | "|" | "|&";

/** A statement: its command and what is done to it as a whole. */
export interface ShellStatement {
  command: ShellCommand;
  redirects: number;
  background: boolean;
  negated: boolean;
  coprocess: boolean;
}

/** A parsed command line: its statements (separated by `;` or newlines), or why it did not parse. */
export type ShellParse = { ok: true; statements: ShellStatement[] } | { ok: false; error: string };

interface RawNode {
  readonly [field: string]: unknown;
}

interface ShellSyntax {
  NewParser(): { Parse(text: string, name: string): RawNode };
  NodeType(node: RawNode): string;
}

interface LoadedSyntax {
  syntax: ShellSyntax;
  /** One parser for every parse: making one costs more than a parse, and each parse starts afresh. */
  parser: { Parse(text: string, name: string): RawNode };
  operators: Map<number, BinaryOperator>;
}

let loaded: LoadedSyntax | null = null;

/** The parser, loaded on first use (it is a large module that most daemons never need early). */
function shellSyntax(): LoadedSyntax {
  if (loaded !== null) return loaded;
  const { syntax } = createRequire(import.meta.url)("mvdan-sh") as { syntax: ShellSyntax };
  const parser = syntax.NewParser();
  // The operator codes are the parser's own: read them off parsed samples, not copied numbers.
  const operators = new Map<number, BinaryOperator>();
  for (const operator of ["&&", "||", "|", "|&"] as const) {
    const file = parser.Parse(`a ${operator} b`, "");
    const command = (list(file.Stmts)[0] as RawNode).Cmd as RawNode;
    operators.set(command.Op as number, operator);
  }
  loaded = { syntax, parser, operators };
  return loaded;
}

/** Parse `text` as bash would. */
export function parseShell(text: string): ShellParse {
  const { syntax, parser, operators } = shellSyntax();
  let file: RawNode;
  try {
    file = parser.Parse(text, "");
  } catch (error) {
    return { ok: false, error: parseErrorText(error) };
  }
  const reduce = new Reduction(syntax, operators);
  return { ok: true, statements: list(file.Stmts).map((statement) => reduce.statement(statement)) };
}

class Reduction {
  constructor(
    private readonly syntax: ShellSyntax,
    private readonly operators: Map<number, BinaryOperator>,
  ) {}

  statement(node: RawNode): ShellStatement {
    return {
      command: this.command(node.Cmd as RawNode | null),
      redirects: list(node.Redirs).length,
      background: node.Background === true,
      negated: node.Negated === true,
      coprocess: node.Coprocess === true,
    };
  }

  command(node: RawNode | null): ShellCommand {
    if (node === null || node === undefined) return { kind: "other", node: "empty" };
    const type = this.syntax.NodeType(node);
    if (type === "CallExpr") {
      return {
        kind: "simple",
        assignments: list(node.Assigns).length,
        words: list(node.Args).map((word) => this.word(word)),
      };
    }
    if (type === "BinaryCmd") {
      const operator = this.operators.get(node.Op as number);
      if (operator === undefined) return { kind: "other", node: `BinaryCmd ${String(node.Op)}` };
      return {
        kind: "binary",
        operator,
        left: this.statement(node.X as RawNode),
        right: this.statement(node.Y as RawNode),
      };
    }
    return { kind: "other", node: type };
  }

  word(node: RawNode): ShellWord {
    let text = "";
    let glob = false;
    let leadingGlob = false;
    for (const part of list(node.Parts)) {
      const type = this.syntax.NodeType(part);
      let piece: LiteralPiece | null = null;
      if (type === "Lit") piece = unquotedText(part.Value as string);
      else if (type === "SglQuoted" && part.Dollar !== true)
        piece = { text: part.Value as string, glob: false };
      else if (type === "DblQuoted" && part.Dollar !== true) piece = this.doubleQuoted(part);
      if (piece === null) return { kind: "expanded", part: type };
      if (text === "" && piece.leadingGlob === true) leadingGlob = true;
      glob ||= piece.glob;
      text += piece.text;
    }
    return { kind: "literal", text, glob, leadingGlob };
  }

  doubleQuoted(node: RawNode): LiteralPiece | null {
    let text = "";
    for (const part of list(node.Parts)) {
      if (this.syntax.NodeType(part) !== "Lit") return null;
      text += doubleQuotedText(part.Value as string);
    }
    return { text, glob: false };
  }
}

interface LiteralPiece {
  text: string;
  glob: boolean;
  leadingGlob?: boolean;
}

const globCharacters = new Set(["*", "?", "["]);

/**
 * An unquoted literal's text: a backslash quotes the next character (and a backslash-newline
 * joins lines). Null when an unquoted brace could be a brace expansion (`{a,b}`, `{1..3}`).
 */
function unquotedText(raw: string): LiteralPiece | null {
  let text = "";
  let glob = false;
  let leadingGlob = false;
  for (let index = 0; index < raw.length; index++) {
    const character = raw[index]!;
    if (character === "\\") {
      const next = raw[index + 1];
      index++;
      if (next !== undefined && next !== "\n") text += next;
      continue;
    }
    if (character === "{" || character === "}") return null;
    if (globCharacters.has(character)) {
      if (text === "") leadingGlob = true;
      glob = true;
    }
    text += character;
  }
  return { text, glob, leadingGlob };
}

/** A literal inside double quotes: a backslash quotes only `$`, a backtick, `"`, `\` and a newline. */
function doubleQuotedText(raw: string): string {
  let text = "";
  for (let index = 0; index < raw.length; index++) {
    const character = raw[index]!;
    const next = raw[index + 1];
    if (character === "\\" && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== "\n") text += next;
      index++;
      continue;
    }
    text += character;
  }
  return text;
}

/** A Go slice from the parser as an array of nodes (null slices are empty). */
function list(value: unknown): RawNode[] {
  return Array.isArray(value) ? (value as RawNode[]) : [];
}

function parseErrorText(error: unknown): string {
  if (typeof error === "object" && error !== null && "Error" in error) {
    const describe = (error as { Error: unknown }).Error;
    if (typeof describe === "function") return String(describe.call(error));
  }
  return error instanceof Error ? error.message : String(error);
}
