import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { approvalModes, nextApprovalMode } from "../../src/api/approval-modes.js";
import type { ApprovalMode } from "../../src/api/approvals.js";
import { modeLabel, modeNamed } from "../../src/cli/chat-approval-mode.js";

const plainPaint = pc.createColors(false);

describe("the chat's approval mode", () => {
  it("cycles read-only, ask, auto-edit, full-auto and back", () => {
    const seen: ApprovalMode[] = [approvalModes[0]];
    for (let step = 0; step < 4; step++) seen.push(nextApprovalMode(seen.at(-1)!));
    expect(seen).toEqual(["read-only", "ask", "auto-edit", "full-auto", "read-only"]);
  });

  it("takes a mode by its name or its number, and nothing else", () => {
    expect(modeNamed("auto-edit")).toBe("auto-edit");
    expect(modeNamed("1")).toBe("read-only");
    expect(modeNamed("4")).toBe("full-auto");
    expect(modeNamed("5")).toBeNull();
    expect(modeNamed("yolo")).toBeNull();
  });

  it("shows no label for ask, the default, and the mode's name for the others", () => {
    expect(modeLabel(plainPaint, "ask")).toBe("");
    expect(modeLabel(plainPaint, "read-only")).toBe("read-only ");
  });
});
