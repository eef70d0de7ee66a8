import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../../src/api/history.js";
import type { SessionSnapshot } from "../../../src/api/session-snapshot.js";
import { entryLines, sessionHeader } from "../../../src/cli/render/history-listing.js";
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

describe("skein show's entries", () => {
  const entry = (kind: "assistant" | "thinking", interrupted: boolean): HistoryEntry => ({
    id: "3",
    position: 3,
    kind,
    turn_id: "t1",
    input_id: null,
    created_at: "2026-01-01T10:00:00.000Z",
    content: [{ kind: "text", text: "Half a sent" }],
    checkpoint_id: null,
    tool: null,
    ...(interrupted ? { interrupted: true as const } : {}),
  });
  const lines = (shown: HistoryEntry) => entryLines(shown, plain, { showThinking: true, calls: new Map() });

  it("marks an interrupted answer and its thinking (interrupted), and nothing else", () => {
    expect(lines(entry("assistant", true))[0]).toMatch(/^\[3\] assistant .* \(interrupted\)$/);
    expect(lines(entry("thinking", true))[0]).toBe("[3] thinking (interrupted)");
    expect(lines(entry("assistant", true))[1]).toBe("    Half a sent");
    expect(lines(entry("assistant", false))[0]).not.toContain("interrupted");
  });
});
