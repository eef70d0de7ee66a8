/** Where retention cuts a log, and when it refuses to: the cut must leave the replayed state unchanged. */
import { describe, expect, it } from "vitest";
import { collectState } from "../../src/log/collect-state.js";
import type { LogEntry, PositionedEntry } from "../../src/log/entries.js";
import { buildChain } from "../../src/log/entry-hash.js";
import { planPrune } from "../../src/log/prune-plan.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";

function placed(entries: LogEntry[]): PositionedEntry[] {
  return buildChain(null, entries).map((hashed, position) => ({ ...hashed, position }));
}

const start: LogEntry = { kind: "session_start", ts: 1, system_prompt: "p", config: {}, history: [] };
function turn(i: number): LogEntry[] {
  return [
    { kind: "user_input", ts: 2, item: userMessage(`q${i}`) },
    { kind: "assistant_items", ts: 2, items: [assistantMessage(`a${i} `.repeat(50))] },
    { kind: "turn_end", ts: 2, turn_count: i + 1 },
  ];
}
function compaction(firstKept: number): LogEntry {
  return {
    kind: "compaction",
    ts: 3,
    summary: "s",
    first_kept_position: firstKept,
    before_tokens: 9,
    after_tokens: 1,
  };
}
const policy = { keep_entries: 2, above_bytes: 0 };

describe("planPrune", () => {
  it("cuts at the latest compaction's first kept position when that keeps more than keep_entries", () => {
    // 0 start, 1..3 turn 0, 4..6 turn 1, 7 compaction keeping from 4, 8..10 turn 2
    const entries = placed([start, ...turn(0), ...turn(1), compaction(4), ...turn(2)]);
    const decision = planPrune(entries, policy, 99);
    if (decision.kind !== "prune") throw new Error(decision.reason);
    expect(decision.plan.upTo).toBe(4);
    expect(decision.plan.entries).toBe(4);
    expect(decision.plan.entry).toMatchObject({
      kind: "pruned",
      ts: 99,
      up_to: 4,
      cut_hash: entries[3]!.hash,
      entries: 4,
      policy,
      base: { system_prompt: "p", request_count: 1 },
    });
    expect(decision.plan.bytes).toBe(decision.plan.entry.bytes);
  });

  it("cuts only so far that keep_entries stay when the compaction kept fewer", () => {
    const entries = placed([start, ...turn(0), ...turn(1), compaction(7), ...turn(2)]);
    const decision = planPrune(entries, { keep_entries: 5, above_bytes: 0 }, 1);
    if (decision.kind !== "prune") throw new Error(decision.reason);
    expect(decision.plan.upTo).toBe(entries.length - 5);
  });

  it("keeps a log that is not above the size limit, was never compacted, or has nothing before the cut", () => {
    const compacted = placed([start, ...turn(0), compaction(1), ...turn(1)]);
    expect(planPrune(compacted, { keep_entries: 2, above_bytes: 1_000_000 }, 1)).toEqual({
      kind: "keep",
      reason: "not above the size limit",
    });
    expect(planPrune(placed([start, ...turn(0), ...turn(1)]), policy, 1)).toEqual({
      kind: "keep",
      reason: "never compacted",
    });
    expect(planPrune(compacted, { keep_entries: 100, above_bytes: 0 }, 1)).toEqual({
      kind: "keep",
      reason: "nothing before the cut",
    });
  });

  it("refuses a cut that would change the replayed state (an approval still waiting from before it)", () => {
    const entries = placed([
      start,
      ...turn(0),
      {
        kind: "approval_requested",
        ts: 2,
        call_id: "c1",
        tool: "run_command",
        rule: { source: "builtin", tool: null, pattern: null, action: "ask" },
      },
      ...turn(1),
      compaction(5),
      ...turn(2),
    ]);
    expect(collectState(entries).pending_approvals).toHaveLength(1);
    expect(planPrune(entries, policy, 1)).toEqual({
      kind: "keep",
      reason: "replay from the cut would change pending_approvals",
    });
  });
});
