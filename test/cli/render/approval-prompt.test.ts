import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { PendingApproval } from "../../../src/api/approvals.js";
import {
  approvalQuestion,
  approvalRequestLines,
  approvalSummary,
  parseApprovalAnswer,
} from "../../../src/cli/render/approval-prompt.js";

const plain = pc.createColors(false);

function request(tool: string, args: unknown): PendingApproval {
  return {
    call_id: "call_1",
    kind: "approval",
    tool,
    arguments: JSON.stringify(args),
    rule: { source: "config", tool: "run_command", pattern: "git *", action: "ask" },
    run_id: "run",
    requested_at: "2026-01-01T00:00:00.000Z",
  };
}

describe("the approval prompt", () => {
  it.each([
    ["y", { decision: "allow" }],
    ["Yes", { decision: "allow" }],
    [" n ", { decision: "deny" }],
    ["no", { decision: "deny" }],
    ["a", { decision: "allow", remember: true }],
    ["always", { decision: "allow", remember: true }],
    ["use make instead", { decision: "deny", message: "use make instead" }],
    ["", null],
    ["   ", null],
  ])("reads %j as %j", (line, answer) => {
    expect(parseApprovalAnswer(request("run_command", { command: "ls" }), line)).toEqual(answer);
  });

  it("takes any non-empty line as the answer to a question, even y or n", () => {
    const question = request("ask_user", { question: "Ready?" });
    expect(parseApprovalAnswer(question, "n")).toEqual({ decision: "allow", message: "n" });
    expect(parseApprovalAnswer(question, "")).toBeNull();
  });

  it.each([
    ["r", { decision: "retry" }],
    ["Retry", { decision: "retry" }],
    ["s", { decision: "skip" }],
    ["skip", { decision: "skip" }],
    ["d", { decision: "done" }],
    ["done", { decision: "done" }],
    ["d: built 3 targets", { decision: "done", message: "built 3 targets" }],
    ["DONE:ok", { decision: "done", message: "ok" }],
    ["y", null],
    ["no", null],
    ["it probably ran", null],
    ["", null],
  ])("reads %j of an unknown outcome as %j (a stray word answers nothing)", (line, answer) => {
    const cut = { ...request("run_command", { command: "make" }), kind: "unknown_outcome" as const };
    expect(parseApprovalAnswer(cut, line)).toEqual(answer);
  });

  it("says a restart cut the call short, and asks retry, skip or done", () => {
    const cut = { ...request("run_command", { command: "make" }), kind: "unknown_outcome" as const };
    const lines = approvalRequestLines(plain, cut, () => null);
    expect(lines[0]).toBe("⚠ run_command was cut short by a daemon restart; did it run? (call call_1)");
    expect(lines[1]).toBe("  $ make");
    expect(approvalQuestion(plain, cut)).toMatch(/\[r\]etry \[s\]kip .*\[d\]one/);
  });

  it("shows a whole apply_patch as one diff, file after file, against the files' current text", () => {
    const files: Record<string, string> = { "a.ts": "one\ntwo\nthree\n" };
    const lines = approvalRequestLines(
      plain,
      request("apply_patch", {
        edits: [
          { path: "a.ts", old_text: "one", new_text: "ONE" },
          { path: "a.ts", old_text: "three", new_text: "THREE" },
          { path: "b.ts", new_text: "new\n" },
        ],
      }),
      (path) => files[path] ?? null,
    );
    expect(lines.slice(1)).toEqual([
      "  --- a/a.ts",
      "  +++ b/a.ts",
      "  @@ -1,3 +1,3 @@",
      "  -one",
      "  +ONE",
      "   two",
      "  -three",
      "  +THREE",
      "  --- /dev/null",
      "  +++ b/b.ts",
      "  @@ -1,0 +1,1 @@",
      "  +new",
    ]);
  });

  it("shows a command line by line, with the rule that asked", () => {
    const lines = approvalRequestLines(
      plain,
      request("run_command", { command: "git push\ngit tag" }),
      () => null,
    );
    expect(lines).toEqual([
      '⚠ run_command wants approval (rule run_command "git *" of the config policy; call call_1)',
      "  $ git push",
      "  > git tag",
    ]);
  });

  it("shows other tools' arguments as JSON, a question as a question, and says when arguments were cut", () => {
    expect(
      approvalRequestLines(plain, request("fs__move", { from: "a", to: "b" }), () => null).slice(1),
    ).toEqual(["  {", '    "from": "a",', '    "to": "b"', "  }"]);
    expect(approvalRequestLines(plain, request("ask_user", { question: "Which?" }), () => null)).toEqual([
      "? the agent asks: Which?",
    ]);
    const cut = {
      ...request("write_file", {}),
      arguments: '{"path":"a","con',
      truncated: { arguments: 900_000 },
    };
    expect(approvalRequestLines(plain, cut, () => null)[1]).toContain(
      "arguments too large to show here (900000 bytes)",
    );
    expect(approvalSummary(request("write_file", { path: "src/a.ts", content: "x" }))).toBe(
      "write_file src/a.ts",
    );
  });
});
