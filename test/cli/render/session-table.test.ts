import { PassThrough } from "node:stream";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../../src/api/session-snapshot.js";
import { sessionTable } from "../../../src/cli/render/session-table.js";
import { sessionSnapshot } from "../../support/session-snapshot.js";

/** A listed session: the summary fields of a whole snapshot. */
function summary(id: string, changes: Partial<SessionSummary> = {}): SessionSummary {
  return {
    ...sessionSnapshot({ id, preview: { text: "the prompt", transcript_count: 1, truncated: false } }),
    ...changes,
  };
}

describe("the sessions table", () => {
  it("names a task child's agent and parent (by its id prefix) before its preview", () => {
    const parent = "01a22934-c991-732a-9431-178574c01836";
    const child = "01a22934-c991-7aaa-8431-178574c01836";
    const output = { stream: new PassThrough(), tty: false, paint: pc.createColors(false), columns: 120 };
    const lines = sessionTable(
      [summary(parent), summary(child, { parent_id: parent, parent_call_id: "call_1", agent: "alpha" })],
      output,
    );
    expect(lines[1]).not.toContain("agent");
    expect(lines[2]).toContain("agent alpha of 01a22934-c991-73");
    expect(lines[2]).toContain("the prompt");
  });

  it("indents a child listed under its parent and counts its tokens in the parent's", () => {
    const parent = "01a22934-c991-732a-9431-178574c01836";
    const child = "01a22934-c991-7aaa-8431-178574c01836";
    const tokens = (total: number) => ({
      prompt_tokens: total,
      completion_tokens: 0,
      cached_prompt_tokens: 0,
      total_tokens: total,
    });
    const output = { stream: new PassThrough(), tty: false, paint: pc.createColors(false), columns: 120 };
    const rows = [
      summary(parent, { usage: tokens(1500) }),
      summary(child, { parent_id: parent, parent_call_id: "call_1", agent: "alpha", usage: tokens(700) }),
    ];
    const [, parentLine, childLine] = sessionTable(rows, output);
    expect(parentLine).toMatch(/^01a22934-c991-73\s.*\s2\.2k\s/);
    expect(childLine).toMatch(/^└ 01a22934-c991-7a\s.*\s700\s/);
    // Listed before its parent (not under it), a child is not indented.
    expect(sessionTable([...rows].reverse(), output)[1]).toMatch(/^01a22934-c991-7a\s/);
  });
});
