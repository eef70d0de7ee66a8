/**
 * The compaction cut over random histories (text, reasoning with signatures, tool calls with
 * their results, parallel calls, a last call still open, bookkeeping between entries): the kept
 * context never holds a call without its result or a result without its call, keeps the last N
 * turns whole when they fit, cuts only between log entries, and is exactly what replay of the
 * compaction entry gives, also when a compacted session is compacted again.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectState } from "../../src/log/collect-state.js";
import { planCompaction } from "../../src/log/compaction-plan.js";
import { compactionSummaryItem } from "../../src/log/compaction-summary.js";
import type { HashedEntry, LogEntry } from "../../src/log/entries.js";
import type { RestoredState } from "../../src/log/restored-state.js";
import {
  assistantMessage,
  type Item,
  reasoning,
  toolCall,
  toolResult,
  userMessage,
} from "../../src/model/items.js";
import { estimateItemsTokens } from "../../src/model/token-estimate.js";

interface ResponseShape {
  thinking: boolean;
  text: string;
  calls: number;
  /** Results come back in another order than the calls. */
  shuffled: boolean;
}

interface TurnShape {
  prompt: string;
  responses: ResponseShape[];
  bookkeeping: boolean;
}

const responseArb: fc.Arbitrary<ResponseShape> = fc.record({
  thinking: fc.boolean(),
  text: fc.string({ maxLength: 40 }),
  calls: fc.integer({ min: 0, max: 3 }),
  shuffled: fc.boolean(),
});

const turnArb: fc.Arbitrary<TurnShape> = fc.record({
  prompt: fc.string({ minLength: 1, maxLength: 60 }),
  responses: fc.array(responseArb, { minLength: 1, maxLength: 4 }),
  bookkeeping: fc.boolean(),
});

/** The log of a session with these turns; with `openCall` the last response's calls get no results. */
function logOf(turns: readonly TurnShape[], openCall: boolean): LogEntry[] {
  const entries: LogEntry[] = [
    { kind: "session_start", ts: 0, system_prompt: "sys", config: {}, history: [] },
  ];
  let callId = 0;
  turns.forEach((turn, t) => {
    entries.push({ kind: "user_input", ts: 1, item: userMessage(turn.prompt) });
    turn.responses.forEach((response, r) => {
      const items: Item[] = [];
      if (response.thinking) items.push(reasoning(`thought ${t}.${r}`, { signature: `sig-${t}-${r}` }));
      if (response.text !== "" || response.calls === 0) items.push(assistantMessage(response.text || "ok"));
      const ids: string[] = [];
      for (let c = 0; c < response.calls; c++) {
        const id = `call_${callId++}`;
        ids.push(id);
        items.push(toolCall(id, "read_file", JSON.stringify({ path: `f${c}` })));
      }
      entries.push({ kind: "assistant_items", ts: 2, items });
      const last = t === turns.length - 1 && r === turn.responses.length - 1;
      if (ids.length > 0 && !(openCall && last)) {
        const order = response.shuffled ? [...ids].reverse() : ids;
        entries.push({ kind: "tool_results", ts: 3, items: order.map((id) => toolResult(id, `out ${id}`)) });
      }
    });
    if (turn.bookkeeping) {
      entries.push({ kind: "turn_end", ts: 4, turn_count: t + 1 });
      entries.push({ kind: "run_outcome", ts: 4, outcome: { type: "finished" }, interrupted: false });
    }
  });
  return entries;
}

function replay(entries: readonly LogEntry[]): RestoredState {
  return collectState(entries.map((entry): HashedEntry => ({ hash: "", prev_hash: null, entry })));
}

function orphans(items: readonly Item[]): { calls: string[]; results: string[] } {
  const calls = new Set(items.flatMap((item) => (item.type === "tool_call" ? [item.call_id] : [])));
  const results = new Set(items.flatMap((item) => (item.type === "tool_result" ? [item.call_id] : [])));
  return {
    calls: [...calls].filter((id) => !results.has(id)),
    results: [...results].filter((id) => !calls.has(id)),
  };
}

/** Index of the first item of the n-th last turn (user messages that are not a summary). */
function nthLastTurnStart(items: readonly Item[], n: number, firstReal: number): number | undefined {
  const starts: number[] = [];
  items.forEach((item, i) => {
    if (i >= firstReal && item.type === "message" && item.role === "user") starts.push(i);
  });
  return starts[starts.length - n];
}

const planArgs = fc.record({
  turns: fc.array(turnArb, { minLength: 1, maxLength: 12 }),
  openCall: fc.boolean(),
  keepTurns: fc.integer({ min: 1, max: 4 }),
  keepTokens: fc.integer({ min: 0, max: 400 }),
  again: fc.array(turnArb, { maxLength: 5 }),
});

describe("the compaction plan", () => {
  it("never keeps an orphan call or result, cuts between entries, and keeps the last N turns whole when they fit", () => {
    fc.assert(
      fc.property(planArgs, ({ turns, openCall, keepTurns, keepTokens, again }) => {
        let entries = logOf(turns, openCall && again.length === 0);
        // Compact once, then (with `again`) grow and compact the compacted session.
        for (const round of again.length === 0 ? [0] : [0, 1]) {
          const state = replay(entries);
          const plan = planCompaction({
            items: state.history,
            positions: state.history_positions,
            nextPosition: entries.length,
            keepTurns,
            keepTokens,
          });
          const firstReal = round === 0 ? 0 : 1;
          if (plan === null) {
            if (round === 0) return;
          } else {
            const openIds = orphans(state.history).calls;
            const kept = orphans(plan.kept);
            expect(kept.results).toEqual([]);
            // A call still waiting for its result is kept; no other call loses its result.
            expect(kept.calls.every((id) => openIds.includes(id))).toBe(true);
            for (const id of openIds) {
              expect(plan.kept.some((item) => item.type === "tool_call" && item.call_id === id)).toBe(true);
            }
            if (plan.keepFrom < state.history.length) {
              expect(state.history_positions[plan.keepFrom - 1]).not.toBe(
                state.history_positions[plan.keepFrom],
              );
            }
            const start = nthLastTurnStart(state.history, keepTurns, firstReal);
            if (
              start !== undefined &&
              start > firstReal &&
              estimateItemsTokens(state.history.slice(start)) <= keepTokens
            ) {
              expect(plan.keepFrom).toBeLessThanOrEqual(start);
            }
            entries = [
              ...entries,
              {
                kind: "compaction",
                ts: 9,
                summary: `summary ${round}`,
                first_kept_position: plan.firstKeptPosition,
                before_tokens: plan.summarizedTokens + plan.keptTokens,
                after_tokens: plan.keptTokens,
              },
            ];
            const after = replay(entries);
            expect(after.history).toEqual([compactionSummaryItem(`summary ${round}`), ...plan.kept]);
            expect(orphans(after.history).results).toEqual([]);
          }
          if (round === 0) {
            entries = [...entries, ...logOf(again, false).slice(1)];
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it("returns no plan when only the turns it must keep are there", () => {
    const entries = logOf(
      [
        {
          prompt: "hi",
          responses: [{ thinking: false, text: "x", calls: 0, shuffled: false }],
          bookkeeping: false,
        },
      ],
      false,
    );
    const state = replay(entries);
    expect(
      planCompaction({
        items: state.history,
        positions: state.history_positions,
        nextPosition: 3,
        keepTurns: 1,
        keepTokens: 1000,
      }),
    ).toBeNull();
  });
});
