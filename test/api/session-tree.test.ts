import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../src/api/session-snapshot.js";
import { agentsBeneathParents, tokensWithAgents } from "../../src/api/session-tree.js";
import { sessionSnapshot } from "../support/session-snapshot.js";

/** A listed session with `tokens` of its own, the child of `parent` as `agent` when given. */
function listed(id: string, tokens: number, parent: string | null = null, agent: string | null = null) {
  const usage = {
    prompt_tokens: tokens,
    completion_tokens: 0,
    cached_prompt_tokens: 0,
    total_tokens: tokens,
  };
  return { ...sessionSnapshot({ id, usage }), parent_id: parent, agent } satisfies SessionSummary;
}

describe("the agent tree of a listing", () => {
  // Newest activity first: the children ran after their parent, so they come before it.
  const grandchild = listed("g", 5, "c1", "beta");
  const child1 = listed("c1", 20, "p", "alpha");
  const child2 = listed("c2", 30, "p", "beta");
  const fork = listed("f", 1000, "p");
  const parent = listed("p", 100);
  const other = listed("o", 7);

  it("puts each task child right after its parent, its own children after it, forks where they were", () => {
    const rows = agentsBeneathParents([grandchild, child1, fork, child2, other, parent]);
    expect(rows.map((row) => `${row.session.id}:${row.depth}`)).toEqual([
      "f:0",
      "o:0",
      "p:0",
      "c1:1",
      "g:2",
      "c2:1",
    ]);
  });

  it("keeps a child whose parent is not listed at the top level, and every row once even in a loop", () => {
    expect(agentsBeneathParents([child1]).map((row) => row.depth)).toEqual([0]);
    const a = listed("a", 1, "b", "x");
    const b = listed("b", 1, "a", "x");
    expect(agentsBeneathParents([a, b]).map((row) => row.session.id)).toEqual(["a", "b"]);
    expect(tokensWithAgents([a, b]).get("a")).toBe(2);
  });

  it("counts a session's tokens with its task children's, recursively, and never a fork's", () => {
    const totals = tokensWithAgents([grandchild, child1, fork, child2, other, parent]);
    expect(totals.get("p")).toBe(100 + 20 + 5 + 30);
    expect(totals.get("c1")).toBe(25);
    expect(totals.get("f")).toBe(1000);
    expect(totals.get("o")).toBe(7);
  });
});
