import { describe, expect, it } from "vitest";
import { judgeCall, type PolicyLayers } from "../../../src/daemon/approval/approval-policy.js";
import type { ApprovalMode } from "../../../src/model/approval-policy.js";

const workspace = "/home/me/project";

function judge(
  mode: ApprovalMode | undefined,
  tool: string,
  args: Record<string, unknown>,
  layers: Partial<PolicyLayers> = {},
) {
  return judgeCall({ remembered: [], ...layers, mode }, { tool, args, workspace });
}

const read = ["read_file", { path: "a.txt" }] as const;
const list = ["list_files", {}] as const;
const write = ["write_file", { path: "a.txt", content: "x" }] as const;
const edit = ["edit_file", { path: "a.txt", old_text: "a", new_text: "b" }] as const;
const patch = ["apply_patch", { patch: "*** Begin Patch" }] as const;
const readOnlyCommand = ["run_command", { command: "git status && ls -la" }] as const;
const command = ["run_command", { command: "npm test" }] as const;
const fetch = ["web_fetch", { url: "https://example.com" }] as const;
const mcp = ["github__create_issue", { title: "t" }] as const;
const grep = ["grep", { pattern: "x", path: "src" }] as const;

describe("approval modes, with no rules set", () => {
  it.each([
    ["read-only", read, "allow"],
    ["read-only", list, "allow"],
    ["read-only", grep, "allow"],
    ["read-only", write, "deny"],
    ["read-only", edit, "deny"],
    ["read-only", patch, "deny"],
    ["read-only", readOnlyCommand, "deny"],
    ["read-only", command, "deny"],
    ["read-only", fetch, "deny"],
    ["read-only", mcp, "deny"],
    ["ask", read, "allow"],
    ["ask", write, "ask"],
    ["ask", patch, "ask"],
    ["ask", readOnlyCommand, "allow"],
    ["ask", command, "ask"],
    ["ask", fetch, "ask"],
    ["ask", mcp, "ask"],
    ["auto-edit", read, "allow"],
    ["auto-edit", write, "allow"],
    ["auto-edit", edit, "allow"],
    ["auto-edit", patch, "allow"],
    ["auto-edit", readOnlyCommand, "allow"],
    ["auto-edit", command, "ask"],
    ["auto-edit", fetch, "ask"],
    ["auto-edit", mcp, "ask"],
    ["full-auto", write, "allow"],
    ["full-auto", command, "allow"],
    ["full-auto", fetch, "allow"],
    ["full-auto", mcp, "allow"],
  ] as const)("%s: %j → %s", (mode, [tool, args], action) => {
    expect(judge(mode, tool, args).action).toBe(action);
  });

  it("treats a session without a mode as in ask mode", () => {
    expect(judge(undefined, ...command)).toEqual(judge("ask", ...command));
    expect(judge(undefined, ...readOnlyCommand).action).toBe("allow");
  });

  it("says the mode or the classifier decided", () => {
    expect(judge("read-only", ...write)).toEqual({
      source: "mode",
      tool: "write_file",
      pattern: null,
      action: "deny",
    });
    expect(judge("ask", ...readOnlyCommand)).toEqual({
      source: "read_only_command",
      tool: "run_command",
      pattern: null,
      action: "allow",
    });
  });
});

describe("approval modes with explicit rules", () => {
  it("lets an explicit deny rule win in every mode", () => {
    const config = {
      rules: [
        { tool: "write_file", action: "deny" as const },
        { tool: "run_command", pattern: "git *", action: "deny" as const },
      ],
    };
    for (const mode of ["read-only", "ask", "auto-edit", "full-auto"] as const) {
      expect(judge(mode, ...write, { config }).action).toBe("deny");
      expect(judge(mode, "run_command", { command: "git status" }, { config }).action).toBe("deny");
    }
  });

  it("lets an explicit ask rule win over the mode's allow", () => {
    const config = { rules: [{ tool: "run_command", pattern: "git push*", action: "ask" as const }] };
    expect(judge("full-auto", "run_command", { command: "git push origin" }, { config }).action).toBe("ask");
    const remembered = [{ tool: "run_command", pattern: "ls", action: "allow" as const }];
    expect(judge("ask", "run_command", { command: "ls" }, { remembered }).source).toBe("remembered");
  });

  it("keeps an explicit ask rule for a read-only command in ask mode", () => {
    const session = { rules: [{ tool: "run_command", action: "ask" as const }] };
    expect(judge("ask", ...readOnlyCommand, { session }).action).toBe("ask");
  });

  it("refuses in read-only mode what an allow rule or a remembered answer allows", () => {
    const remembered = [{ tool: "write_file", action: "allow" as const }];
    const config = { rules: [{ tool: "run_command", pattern: "npm test", action: "allow" as const }] };
    expect(judge("read-only", ...write, { remembered }).action).toBe("deny");
    expect(judge("read-only", ...command, { config }).action).toBe("deny");
  });

  it("replaces the configured default with the mode's answer", () => {
    const config = { default: "deny" as const };
    expect(judge("ask", ...write, { config }).action).toBe("deny");
    expect(judge("auto-edit", ...write, { config }).action).toBe("allow");
    expect(judge("full-auto", ...command, { config }).action).toBe("allow");
  });

  it("does not turn a configured default deny into an allow for a read-only command in ask mode", () => {
    expect(judge("ask", ...readOnlyCommand, { config: { default: "deny" } }).action).toBe("deny");
  });

  it("still denies a path outside the workspace in full-auto mode", () => {
    expect(judge("full-auto", "write_file", { path: "/etc/passwd", content: "" }).source).toBe("workspace");
    expect(judge("full-auto", "grep", { pattern: "x", path: "../other" }).action).toBe("deny");
  });
});
