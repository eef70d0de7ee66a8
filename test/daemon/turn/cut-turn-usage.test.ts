import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wholeLog } from "../../../src/daemon/history/history-log.js";
import { cutTurnUsage } from "../../../src/daemon/turn/cut-turn-usage.js";
import type { LogEntry, RequestUsage } from "../../../src/log/entries.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import type { Usage } from "../../../src/model/usage.js";
import { placeLog, sessionStart, ts0 } from "../history/log-fixtures.js";

/** One model request of a turn: its answer's usage (null: none recorded), and whether tool results follow. */
interface Request {
  usage: RequestUsage | null;
  tools: boolean;
  /** An entry of no turn (a budget change) logged after the answer. */
  budgetChange: boolean;
}

const requestUsage = fc.record({
  input_tokens: fc.nat({ max: 100_000 }),
  output_tokens: fc.nat({ max: 5_000 }),
  cache_read_tokens: fc.nat({ max: 50_000 }),
  cache_write_tokens: fc.nat({ max: 5_000 }),
  profile: fc.constant("main"),
});

const request: fc.Arbitrary<Request> = fc.record({
  usage: fc.option(requestUsage, { nil: null }),
  tools: fc.boolean(),
  budgetChange: fc.boolean(),
});

/** A turn's entries: its input, then each request's answer (and results). */
function turnEntries(turnId: string, requests: readonly Request[]): LogEntry[] {
  const entries: LogEntry[] = [{ kind: "user_input", ts: ts0, item: userMessage("go"), turn_id: turnId }];
  for (const each of requests) {
    entries.push({
      kind: "assistant_items",
      ts: ts0,
      items: [assistantMessage("ok")],
      turn_id: turnId,
      ...(each.usage === null ? {} : { usage: each.usage }),
    });
    if (each.tools) entries.push({ kind: "tool_results", ts: ts0, items: [], turn_id: turnId });
    if (each.budgetChange) entries.push({ kind: "budget_changed", ts: ts0, budget: null });
  }
  return entries;
}

/** What the answers of `requests` used, summed field by field (absent: no answer recorded any). */
function summed(requests: readonly Request[]): Usage {
  const recorded = requests.flatMap((each) => (each.usage === null ? [] : [each.usage]));
  if (recorded.length === 0) return {};
  const total = (field: keyof Omit<RequestUsage, "profile" | "cost_usd" | "schedule">) =>
    recorded.reduce((sum, usage) => sum + usage[field], 0);
  return {
    input_tokens: total("input_tokens"),
    output_tokens: total("output_tokens"),
    cache_read_tokens: total("cache_read_tokens"),
    cache_write_tokens: total("cache_write_tokens"),
  };
}

/** A request's usage record: `input` (with `cacheRead` of it cached) and `output` tokens. */
function recorded(input: number, output: number, cacheRead: number): RequestUsage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_write_tokens: 0,
    profile: "main",
  };
}

describe("the usage of a turn a crash cut short", () => {
  it("is what the cut turn's answers recorded, never an earlier turn's, over any history and any page boundary", async () => {
    const ended = fc.array(fc.array(request, { maxLength: 12 }), { maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(ended, fc.array(request, { maxLength: 90 }), async (earlier, cut) => {
        const entries: LogEntry[] = [sessionStart()];
        earlier.forEach((requests, i) => {
          entries.push(...turnEntries(`turn-${i}`, requests));
          entries.push({ kind: "turn_end", ts: ts0, turn_count: i });
          entries.push({
            kind: "run_outcome",
            ts: ts0,
            outcome: { type: "finished" },
            interrupted: false,
          });
        });
        entries.push(...turnEntries("cut", cut));
        expect(await cutTurnUsage(wholeLog(placeLog(entries)), "cut")).toEqual(summed(cut));
      }),
      { numRuns: 300 },
    );
  });

  it("stops at the previous turn even when that turn's end entries are missing", async () => {
    const usage = recorded(10, 1, 0);
    const entries = [
      sessionStart(),
      ...turnEntries("older", [{ usage, tools: false, budgetChange: false }]),
      ...turnEntries("cut", [{ usage, tools: true, budgetChange: false }]),
    ];
    expect(await cutTurnUsage(wholeLog(placeLog(entries)), "cut")).toEqual({
      input_tokens: 10,
      output_tokens: 1,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
  });

  it("reads from a pruned log's cut when the turn reaches back before it", async () => {
    const usage = recorded(5, 2, 1);
    const requests = Array.from({ length: 100 }, () => ({ usage, tools: true, budgetChange: false }));
    const kept = placeLog(turnEntries("cut", requests)).slice(150);
    const answers = kept.filter((stored) => stored.entry.kind === "assistant_items").length;
    expect(await cutTurnUsage(wholeLog(kept), "cut")).toEqual({
      input_tokens: 5 * answers,
      output_tokens: 2 * answers,
      cache_read_tokens: answers,
      cache_write_tokens: 0,
    });
  });
});
