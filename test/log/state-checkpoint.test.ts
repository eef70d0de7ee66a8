import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import { collectState } from "../../src/log/collect-state.js";
import type { LogEntry, PositionedEntry } from "../../src/log/entries.js";
import { buildChain } from "../../src/log/entry-hash.js";
import {
  checkpointDue,
  checkpointOf,
  restoreFromCheckpoint,
  stateOfCheckpoint,
} from "../../src/log/state-checkpoint.js";
import { toolCall, toolResult } from "../../src/model/items.js";
import { laterEntryArbitrary, sessionStartArbitrary } from "./arbitraries.js";

/** Entries that reach back into the history: compactions, exclusions and a call with its result. */
const reachingBackArbitrary: fc.Arbitrary<(position: number) => LogEntry> = fc.oneof(
  fc.tuple(fc.nat(), fc.string({ maxLength: 20 }), fc.nat(), fc.nat()).map(
    ([back, summary, before, after]) =>
      (position: number): LogEntry => ({
        kind: "compaction",
        ts: 1,
        summary,
        first_kept_position: Math.max(0, position - (back % (position + 1))),
        before_tokens: before,
        after_tokens: after,
      }),
  ),
  fc.tuple(fc.nat(), fc.nat()).map(([back, width]) => (position: number): LogEntry => {
    const from = Math.max(0, position - 1 - (back % (position + 1)));
    return {
      kind: "context_excluded",
      ts: 2,
      from_position: from,
      to_position: from + (width % 3),
      reason: "repair",
    };
  }),
  fc
    .constantFrom("call_0", "call_1", "__proto__")
    .map((id) => (): LogEntry => ({ kind: "assistant_items", ts: 3, items: [toolCall(id, "bash", "{}")] })),
  fc
    .constantFrom("call_0", "call_1")
    .map((id) => (): LogEntry => ({ kind: "tool_results", ts: 4, items: [toolResult(id, "done", false)] })),
);

/** A log of every kind of entry, positions included, as a store would return it. */
const historyArbitrary: fc.Arbitrary<PositionedEntry[]> = fc
  .tuple(
    sessionStartArbitrary,
    fc.array(
      fc.oneof(
        laterEntryArbitrary.map((entry) => () => entry),
        reachingBackArbitrary,
      ),
      { maxLength: 40 },
    ),
  )
  .map(([start, later]) => {
    const entries: LogEntry[] = [start];
    for (const make of later) entries.push(make(entries.length));
    // As a store returns them: parsed back from the canonical text that was hashed (-0 reads as 0).
    return buildChain(null, entries).map((hashed, position) => ({
      ...hashed,
      entry: JSON.parse(canonicalJson(hashed.entry)) as LogEntry,
      position,
    }));
  });

describe("state checkpoints", () => {
  it("restore from a checkpoint at any position gives exactly the full replay's state", () => {
    fc.assert(
      fc.property(historyArbitrary, fc.nat(), (entries, at) => {
        const cut = at % entries.length;
        const prefix = entries.slice(0, cut + 1);
        const checkpoint = checkpointOf(collectState(prefix), entries[cut]!);
        const restored = restoreFromCheckpoint("s", checkpoint, entries.slice(cut + 1));
        expect(restored).toEqual(collectState(entries));
        // The text is canonical: written again from the restored state it is the same text.
        expect(checkpointOf(stateOfCheckpoint("s", checkpoint), entries[cut]!).state).toBe(checkpoint.state);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a call id named __proto__ as data in the restored answers", () => {
    const entries = buildChain(null, [
      { kind: "session_start", ts: 0, system_prompt: null, config: {}, history: [] },
      { kind: "approval_resolved", ts: 1, call_id: "__proto__", decision: "allow", by: "client" },
    ]).map((hashed, position) => ({ ...hashed, position }));
    const restored = restoreFromCheckpoint("s", checkpointOf(collectState(entries), entries[1]!), []);
    expect(Object.getPrototypeOf(restored.approval_decisions)).toBeNull();
    expect(Object.hasOwn(restored.approval_decisions, "__proto__")).toBe(true);
  });

  it("is due at a compaction and every spacing positions, and not otherwise", () => {
    const compaction: LogEntry = {
      kind: "compaction",
      ts: 0,
      summary: "",
      first_kept_position: 0,
      before_tokens: 0,
      after_tokens: 0,
    };
    const plain: LogEntry = { kind: "turn_end", ts: 0, turn_count: 1 };
    expect(checkpointDue(-1, 5, [compaction], 100)).toBe(true);
    expect(checkpointDue(-1, 5, [plain], 100)).toBe(false);
    expect(checkpointDue(10, 110, [plain], 100)).toBe(true);
    expect(checkpointDue(10, 109, [plain], 100)).toBe(false);
  });
});
