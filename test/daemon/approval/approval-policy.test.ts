import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  judgeCall,
  type PolicyLayers,
  rememberedRule,
  ruleCovers,
} from "../../../src/daemon/approval/approval-policy.js";
import type { ApprovalAction, ApprovalPolicy, ApprovalRule } from "../../../src/model/approval-policy.js";

const workspace = "/home/me/project";

function judge(layers: Partial<PolicyLayers>, tool: string, args: Record<string, unknown>) {
  return judgeCall({ remembered: [], ...layers }, { tool, args, workspace });
}

const scripted: ApprovalPolicy = {
  default: "ask",
  rules: [
    { tool: "run_command", pattern: "git status*", action: "allow" },
    { tool: "run_command", pattern: "rm *", action: "deny" },
    { tool: "read_file", action: "allow" },
    { tool: "fs__*", action: "allow" },
    { tool: "write_file", pattern: "docs/*", action: "allow" },
  ],
};

describe("the approval policy", () => {
  describe("when nothing is set", () => {
    it.each([
      ["read_file", { path: "a.txt" }, "allow"],
      ["list_files", {}, "allow"],
      ["grep", { pattern: "x" }, "allow"],
      ["grep", { pattern: "x", path: "src" }, "allow"],
      ["glob", { pattern: "*.ts" }, "allow"],
      ["todo_write", { todos: [{ content: "plan", status: "pending" }] }, "allow"],
      ["apply_patch", { edits: [{ path: "a.txt", new_text: "" }] }, "ask"],
      ["web_fetch", { url: "https://example.com" }, "ask"],
      ["write_file", { path: "a.txt", content: "" }, "ask"],
      ["edit_file", { path: "a.txt", old_text: "a", new_text: "b" }, "ask"],
      ["run_command", { command: "npm test" }, "ask"],
      ["fs__read_text_file", { path: "/etc/passwd" }, "ask"],
    ] as const)("%s %j → %s", (tool, args, action) => {
      const rule = judge({}, tool, args);
      expect(rule.action).toBe(action);
      expect(rule.source).toBe("builtin");
    });
  });

  describe("with rules", () => {
    it.each([
      ["run_command", { command: "git status" }, "allow", "git status*"],
      ["run_command", { command: "git status --short" }, "allow", "git status*"],
      ["run_command", { command: "git status; rm -rf ~" }, "deny", "rm *"],
      ["run_command", { command: "git status && curl x | sh" }, "ask", null],
      ["run_command", { command: "git status > leak.txt" }, "ask", null],
      ["run_command", { command: "git status $(touch x)" }, "ask", null],
      ["run_command", { command: "git status `touch x`" }, "ask", null],
      ["run_command", { command: "git status\ntouch x" }, "ask", null],
      ["run_command", { command: "rm -rf build" }, "deny", "rm *"],
      ["run_command", { command: "make && rm -rf build" }, "deny", "rm *"],
      ["run_command", { command: "npm test" }, "ask", null],
      ["read_file", { path: "src/a.ts" }, "allow", null],
      ["list_files", { path: "." }, "ask", null],
      ["fs__list_directory", { path: "." }, "allow", null],
      ["write_file", { path: "docs/guide.md", content: "" }, "allow", "docs/*"],
      ["write_file", { path: "./docs/../docs/x.md", content: "" }, "allow", "docs/*"],
      ["write_file", { path: "src/docs/x.md", content: "" }, "ask", null],
    ] as const)("%s %j → %s", (tool, args, action, pattern) => {
      const rule = judge({ config: scripted }, tool, args);
      expect(rule.action).toBe(action);
      expect(rule.pattern).toBe(pattern);
    });

    it("denies file tools whose path leaves the workspace, whatever the rules say", () => {
      const allowAll: ApprovalPolicy = { default: "allow", rules: [{ tool: "*", action: "allow" }] };
      for (const path of ["../secret", "/etc/passwd", "a/../../b", `${workspace}-other/x`]) {
        for (const tool of ["read_file", "write_file", "edit_file", "list_files", "grep", "glob"]) {
          expect(judge({ session: allowAll }, tool, { path })).toEqual({
            source: "workspace",
            tool,
            pattern: null,
            action: "deny",
          });
        }
      }
      expect(judge({ session: allowAll }, "read_file", { path: `${workspace}/inside.txt` }).action).toBe(
        "allow",
      );
      expect(judge({ session: allowAll }, "read_file", { path: "a/../b" }).action).toBe("allow");
      const trailing = judgeCall(
        { session: allowAll, remembered: [] },
        { tool: "list_files", args: { path: "." }, workspace: `${workspace}/` },
      );
      expect(trailing.action).toBe("allow");
    });

    it("lets the most specific default apply and counts every layer's rules", () => {
      const layers: Partial<PolicyLayers> = {
        config: { default: "deny", rules: [{ tool: "run_command", pattern: "rm *", action: "deny" }] },
        profile: { default: "ask" },
        session: { default: "allow", rules: [] },
      };
      expect(judge(layers, "write_file", { path: "a", content: "" })).toMatchObject({
        source: "session",
        tool: null,
        action: "allow",
      });
      expect(judge(layers, "run_command", { command: "rm x" })).toMatchObject({
        source: "config",
        action: "deny",
      });
      expect(judge({ config: { rules: [] } }, "read_file", { path: "a" })).toMatchObject({
        source: "config",
        action: "ask",
      });
    });

    it("matches other tools' patterns against their arguments as JSON", () => {
      const policy: ApprovalPolicy = {
        rules: [{ tool: "github__*", pattern: '*"repo":"me/*', action: "allow" }],
      };
      expect(judge({ session: policy }, "github__create_issue", { repo: "me/skein" }).action).toBe("allow");
      expect(judge({ session: policy }, "github__create_issue", { repo: "you/x" }).action).toBe("ask");
    });
  });

  describe("remembered rules", () => {
    it("remember the exact command, with its stars taken literally", () => {
      const rule = rememberedRule("run_command", { command: "ls *.ts; echo done" }, "allow");
      expect(ruleCovers(rule, "run_command", { command: "ls *.ts; echo done" })).toBe(true);
      expect(ruleCovers(rule, "run_command", { command: "ls a; rm -rf ~; x.ts; echo done" })).toBe(false);
      const layers = { remembered: [rule] };
      expect(judge(layers, "run_command", { command: "ls *.ts; echo done" })).toMatchObject({
        source: "remembered",
        action: "allow",
      });
    });

    it("remember any arguments for the other tools", () => {
      const rule = rememberedRule("write_file", { path: "a", content: "x" }, "allow");
      expect(rule).toEqual({ tool: "write_file", action: "allow" });
      expect(judge({ remembered: [rule] }, "write_file", { path: "b/c", content: "" }).action).toBe("allow");
      expect(judge({ remembered: [rule] }, "write_file", { path: "../c", content: "" }).action).toBe("deny");
    });

    it("do not outweigh a deny rule", () => {
      const remembered = [rememberedRule("run_command", { command: "rm -rf build" }, "allow")];
      expect(judge({ remembered, config: scripted }, "run_command", { command: "rm -rf build" }).action).toBe(
        "deny",
      );
    });
  });

  describe("properties", () => {
    const action = fc.constantFrom<ApprovalAction>("allow", "ask", "deny");
    const tool = fc.constantFrom("run_command", "write_file", "read_file", "fs__read", "*", "fs__*");
    const pattern = fc.option(
      fc.constantFrom("*", "git *", "rm *", "src/*", "a*b", "git status*", "*;*", "x"),
      { nil: undefined },
    );
    const rule: fc.Arbitrary<ApprovalRule> = fc
      .tuple(tool, pattern, action)
      .map(([t, p, a]) => (p === undefined ? { tool: t, action: a } : { tool: t, pattern: p, action: a }));
    const policy: fc.Arbitrary<ApprovalPolicy> = fc.record(
      { default: action, rules: fc.array(rule, { maxLength: 6 }) },
      { requiredKeys: ["rules"] },
    );
    const call = fc.oneof(
      fc
        .constantFrom("git status", "git status; rm -rf /", "rm -rf x", "ls | wc", "git push", "a;b")
        .map((command) => ({ tool: "run_command", args: { command } as Record<string, unknown> })),
      fc
        .tuple(
          fc.constantFrom("write_file", "read_file", "fs__read"),
          fc.constantFrom("src/a", "a", "../x", "/etc"),
        )
        .map(([t, path]) => ({ tool: t, args: { path } as Record<string, unknown> })),
    );

    it("does not depend on the order of the rules", () => {
      fc.assert(
        fc.property(policy, call, fc.func(fc.integer()), (p, c, order) => {
          const shuffled = [...(p.rules ?? [])].sort((a, b) => order(a) - order(b));
          const once = judge({ session: p }, c.tool, c.args).action;
          const again = judge({ session: { ...p, rules: shuffled } }, c.tool, c.args).action;
          expect(again).toBe(once);
        }),
      );
    });

    it("never loosens what a rule decided when another rule is added", () => {
      const strictness = { allow: 0, ask: 1, deny: 2 };
      fc.assert(
        fc.property(policy, rule, call, (p, extra, c) => {
          const before = judge({ session: p }, c.tool, c.args);
          const after = judge({ session: { ...p, rules: [...(p.rules ?? []), extra] } }, c.tool, c.args);
          if (before.tool !== null) {
            expect(strictness[after.action]).toBeGreaterThanOrEqual(strictness[before.action]);
          }
        }),
      );
    });

    it("never lets an allow pattern without operators cover a chained command", () => {
      fc.assert(
        fc.property(
          fc.string({ unit: fc.constantFrom("a", "b", " ", "*", "-"), maxLength: 8 }),
          fc.constantFrom(";", "&&", "|", "`", "$(", ">", "<", "\n"),
          fc.string({ unit: fc.constantFrom("a", "b", " "), maxLength: 6 }),
          (prefix, operator, rest) => {
            if (prefix.trim() === "*") return;
            const allowed: ApprovalRule = { tool: "run_command", pattern: prefix, action: "allow" };
            const command = `${prefix.replaceAll("*", "")}${operator}${rest}`;
            expect(ruleCovers(allowed, "run_command", { command })).toBe(false);
          },
        ),
      );
    });
  });
});
