import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  classifyCommand,
  classifyUncached,
  maxClassifiedLength,
} from "../../../src/daemon/approval/read-only-command.js";

const readOnly = [
  "ls",
  "ls -la",
  "ls -la src/daemon",
  "ls *.ts",
  "ls src/*.ts",
  "cat README.md",
  "cat 'a file with spaces.txt'",
  'cat "docs/http-api.md"',
  "cat a\\ b.txt",
  "head -n 20 src/index.ts",
  "head -20 package.json",
  "tail -n 50 log.txt",
  "wc -l src/daemon/daemon.ts",
  "wc -l *.ts",
  "grep -rn TODO src",
  "grep -rn 'a;b > c' src",
  'grep -E "foo|bar" -- *.md',
  "grep -c x file.txt",
  "egrep 'x|y' a.txt",
  "fgrep -r needle .",
  "rg approval src",
  "rg -n --glob '*.ts' judgeCall",
  "rg -z needle archive",
  "find . -name '*.ts'",
  "find src -type f -newer package.json",
  "find . -maxdepth 2 -type d",
  "find src/*.ts -size +1k",
  "git status",
  "git status --short",
  "git diff",
  "git diff --stat HEAD~1",
  "git diff --output-indicator-new=+ HEAD",
  "git log --oneline -n 20",
  "git log -p -- src/index.ts",
  "git show HEAD",
  "git show --stat HEAD~2",
  "pwd",
  "echo hello",
  "echo 'a > b; c'",
  'echo "it is $ fine"',
  "stat package.json",
  "file README.md",
  "du -sh src",
  "tree -L 2",
  "tree -a -I node_modules",
  "sort names.txt",
  "sort -rn counts.txt",
  "uniq names.txt",
  "uniq -c sorted.txt",
  "basename /a/b/c.ts",
  "dirname src/x/y.ts",
  "realpath .",
  "which node",
  "cut -d: -f1 data.txt",
  "nl README.md",
  "cd src && ls",
  "cd src; grep -rn x .",
  "ls | wc -l",
  "git log --oneline | head -n 5",
  "grep -rn x src | sort | uniq -c",
  "cat a.txt | grep b | wc -l",
  "ls && git status",
  "ls || pwd",
  "ls; pwd; git status",
  "ls\npwd",
  "ls # list the files",
  "find . -name '*.md' | head",
  "git diff HEAD~1 -- docs | grep '^+'",
];

const notReadOnly = [
  "",
  "   ",
  "# only a comment",
  "rm -rf build",
  "rm README.md",
  "mv a b",
  "cp a b",
  "touch x",
  "mkdir d",
  "npm test",
  "npm install",
  "npx vitest run",
  "node script.js",
  "python3 -c 'print(1)'",
  "sh -c ls",
  "bash script.sh",
  "sed -i s/a/b/ file",
  "sed -n 1,10p file",
  "awk '{print $1}' file",
  "xargs rm",
  "ls | xargs rm",
  "ls > out.txt",
  "ls >> out.txt",
  "ls 2>/dev/null",
  "ls 2>&1",
  "cat < in.txt",
  "cat <<EOF\nhi\nEOF",
  "ls &>out",
  "ls >| out",
  "ls |& cat",
  "ls &",
  "ls & pwd",
  "! ls",
  "coproc ls",
  "time ls",
  "(ls)",
  "{ ls; }",
  "ls; rm -rf /",
  "ls && rm x",
  "ls || rm x",
  "git status; git push",
  "cat x | sh",
  "echo $(rm x)",
  "echo `rm x`",
  'echo "$(rm x)"',
  "cat <(rm x)",
  "ls $((i++))",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template.
  "ls ${x:=y}",
  "echo $HOME",
  'echo "$HOME"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template.
  "echo ${PATH}",
  "ls $'\\x2d\\x2dhelp'",
  "ls {a,b}",
  "ls {1..3}",
  "ls @(a|b)",
  "X=1 ls",
  "GIT_EXTERNAL_DIFF=evil git diff",
  "export A=1",
  "a=$(ls)",
  "f() { ls; }",
  "for f in *; do cat $f; done",
  "while true; do ls; done",
  "if true; then ls; fi",
  "[[ -f a ]]",
  "[ -f a ]",
  "test -f a",
  "((x = 1))",
  "/bin/ls",
  "./ls",
  "l*",
  "find . -delete",
  "find . -name x -exec rm {} \\;",
  "find . -execdir rm {} +",
  "find . -ok rm {} ;",
  "find . -fprint out",
  "find . -fprintf out %p",
  "find . -fls out",
  "find * -name x",
  "git push",
  "git commit -m x",
  "git checkout .",
  "git -c core.pager=evil log",
  "git -C other status",
  "git --no-pager log",
  "git",
  "git diff --output=patch.txt",
  "git diff --output patch.txt",
  "git log --outp=x",
  "git diff --ext-diff",
  "git diff *",
  "rg --pre ./evil needle",
  "rg --pre=./evil needle",
  "rg --hostname-bin=./evil x",
  "rg needle *",
  "sort -o out.txt in.txt",
  "sort -ro out.txt in.txt",
  "sort --output=out.txt in.txt",
  "sort --out=out.txt in.txt",
  "sort --compress-program=evil big.txt",
  "sort -T /tmp big.txt",
  "sort *",
  "uniq in.txt out.txt",
  "uniq src/*.txt",
  "tree -o out.txt",
  "tree -R -H . -o x",
  "file -C -m magic",
  "file --compile",
  'echo "unterminated',
  "ls 'unterminated",
  "ls &&",
  "| ls",
  "exec ls",
  "command ls",
  "env ls",
  "sudo ls",
  "chmod +x a",
  "ln -s a b",
  "tee out.txt",
  "ls | tee out.txt",
  "curl http://example.com",
];

describe("the read-only command classifier", () => {
  it("has a table of at least 100 commands", () => {
    expect(readOnly.length + notReadOnly.length).toBeGreaterThanOrEqual(100);
  });

  it.each(readOnly)("allows %j", (command) => {
    expect(classifyCommand(command)).toEqual({ readOnly: true });
  });

  it.each(notReadOnly)("does not allow %j", (command) => {
    const verdict = classifyCommand(command);
    expect(verdict.readOnly).toBe(false);
  });

  it("says why a command is not read-only", () => {
    expect(classifyCommand("ls > out.txt")).toEqual({ readOnly: false, reason: "it redirects" });
    expect(classifyCommand("rm x")).toEqual({ readOnly: false, reason: '"rm" is not a read-only program' });
    expect(classifyCommand("sort -o x y")).toEqual({
      readOnly: false,
      reason: "sort -o writes or runs a program",
    });
  });

  it("gives a command judged again the same verdict as the first time", () => {
    for (const command of [...readOnly, ...notReadOnly]) {
      expect(classifyCommand(command)).toEqual(classifyUncached(command));
    }
  });

  it("does not parse a command longer than its bound", () => {
    const long = `ls ${"a".repeat(maxClassifiedLength)}`;
    expect(classifyCommand(long)).toEqual({
      readOnly: false,
      reason: "the command is too long to classify",
    });
  });
});

/** Pieces a command is built of: allowed programs and arguments, and forbidden ones. */
const safePrograms = [
  "ls",
  "cat",
  "head -n 3",
  "wc -l",
  "grep -rn x",
  "git status",
  "git diff",
  "pwd",
  "echo",
];
const unsafePrograms = ["rm -rf", "sed -i s/a/b/", "sh -c", "tee", "npm test", "xargs rm", "mv a", "/bin/ls"];
const arguments_ = ["a.txt", "'b c'", '"d"', "src/*.ts", "-la", "--", "x\\ y"];
const writes = ["> out", ">> out", "2>&1", "< in", "&>out", "<<EOF\nx\nEOF\n", ">|out"];
// biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions, not templates.
const substitutions = ["$(rm x)", "`rm x`", "<(rm x)", "$((i=1))", "${x:=y}", "$HOME", '"$(id)"', "$'\\x41'"];
const joins = [" | ", " && ", " || ", "; ", "\n", " & ", " |& "];

/** One simple command: a program, some arguments, perhaps a write or a substitution. */
const simpleCommand = fc
  .tuple(
    fc.oneof(fc.constantFrom(...safePrograms), fc.constantFrom(...unsafePrograms)),
    fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...arguments_) },
        { weight: 1, arbitrary: fc.constantFrom(...writes) },
        { weight: 1, arbitrary: fc.constantFrom(...substitutions) },
      ),
      { maxLength: 4 },
    ),
  )
  .map(([program, args]) => [program, ...args].join(" "));

/** Commands from the grammar: simple commands joined by operators, sometimes in a subshell. */
const command = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom(...joins), simpleCommand), { maxLength: 3 }), simpleCommand)
  .chain(([rest, first]) =>
    fc.boolean().map((wrapped) => {
      const text = first + rest.map(([join, next]) => join + next).join("");
      return wrapped ? `(${text})` : text;
    }),
  );

/** The forbidden pieces a command holds, in its text. */
function forbiddenPieces(text: string): string[] {
  const pieces = [...writes, ...substitutions, ...unsafePrograms, " & ", " |& ", "("];
  return pieces.filter((piece) => text.includes(piece));
}

describe("the read-only command classifier, on generated commands", () => {
  it("never allows a command holding a write, a redirect, a substitution or a forbidden program", () => {
    fc.assert(
      fc.property(command, (text) => {
        if (classifyUncached(text).readOnly) expect(forbiddenPieces(text)).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  });

  it("allows every command made only of allowed pieces joined by allowed operators", () => {
    const allowedCommand = fc
      .array(
        fc
          .tuple(fc.constantFrom(...safePrograms), fc.array(fc.constantFrom("a.txt", "'b c'", '"d"', "-l")))
          .map(([program, args]) => [program, ...args].join(" ")),
        { minLength: 1, maxLength: 4 },
      )
      .chain((parts) =>
        fc
          .array(fc.constantFrom(" | ", " && ", " || ", "; ", "\n"), {
            minLength: parts.length - 1,
            maxLength: parts.length - 1,
          })
          .map((operators) =>
            parts.map((part, index) => (index === 0 ? part : operators[index - 1] + part)).join(""),
          ),
      );
    fc.assert(
      fc.property(allowedCommand, (text) => {
        expect(classifyUncached(text)).toEqual({ readOnly: true });
      }),
      { numRuns: 500 },
    );
  });
});
