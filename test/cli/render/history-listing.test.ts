import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { SessionSnapshot } from "../../../src/api/session-snapshot.js";
import { sessionHeader } from "../../../src/cli/render/history-listing.js";
import { sessionSnapshot } from "../../support/session-snapshot.js";

const plain = pc.createColors(false);

function snapshot(todos: SessionSnapshot["todos"]): SessionSnapshot {
  return sessionSnapshot({ todos });
}

describe("skein show's header", () => {
  it("lists the agent's plan under the session's figures, and nothing when there is none", () => {
    const plan = sessionHeader(
      snapshot([
        { content: "read", status: "completed" },
        { content: "fix", status: "in_progress" },
        { content: "test", status: "pending" },
      ]),
      plain,
    );
    expect(plan.slice(-4)).toEqual(["plan (1/3 done)", "  [x] read", "  [~] fix", "  [ ] test"]);
    expect(sessionHeader(snapshot([]), plain).some((line) => line.startsWith("plan"))).toBe(false);
  });
});
