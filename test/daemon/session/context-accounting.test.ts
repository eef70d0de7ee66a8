import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextAccount } from "../../../src/daemon/session/context-accounting.js";
import { emptyState } from "../../../src/log/collect-state.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { estimateItemsTokens, estimateTextTokens } from "../../../src/model/token-estimate.js";
import type { ToolMeta } from "../../../src/model/tools.js";

const schema = { type: "object", properties: { path: { type: "string" } }, additionalProperties: false };

/** The overhead estimate of `tools` (no system prompt). */
function overheadOf(tools: readonly ToolMeta[]): number {
  const account = new ContextAccount();
  account.setOverhead(null, tools);
  return account.overhead;
}

describe("the context account's overhead", () => {
  it("counts each tool's name, description and schema, the same for tools made anew each turn", () => {
    const tool = (): ToolMeta => ({ name: "read_file", description: "Read a file.", input_schema: schema });
    const first = overheadOf([tool()]);
    expect(first).toBeGreaterThanOrEqual(
      estimateTextTokens(`read_fileRead a file.${JSON.stringify(schema)}`),
    );
    expect(overheadOf([tool()])).toBe(first);
    expect(overheadOf([tool(), tool()])).toBe(2 * first);
  });

  it("counts a changed description or another schema anew", () => {
    const short = overheadOf([{ name: "t", description: "Short.", input_schema: schema }]);
    const long = overheadOf([
      { name: "t", description: "A much longer description. ".repeat(20), input_schema: schema },
    ]);
    expect(long).toBeGreaterThan(short);
    const wider = {
      ...schema,
      properties: { path: { type: "string" }, other: { type: "string", description: "x".repeat(400) } },
    };
    expect(overheadOf([{ name: "t", description: "Short.", input_schema: wider }])).toBeGreaterThan(short);
  });
});

describe("the context account's estimate of a request being sent", () => {
  type Step =
    | { kind: "append"; texts: string[] }
    | { kind: "compact"; drop: number; summary: string }
    | { kind: "send" }
    | { kind: "usage"; inputTokens: number };

  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      kind: fc.constant("append" as const),
      texts: fc.array(fc.string({ maxLength: 80 }), { maxLength: 4 }),
    }),
    fc.record({
      kind: fc.constant("compact" as const),
      drop: fc.integer({ min: 1, max: 3 }),
      // Longer than any appended text, so a summary never estimates the same as what it replaced.
      summary: fc.string({ minLength: 100, maxLength: 200 }),
    }),
    fc.record({ kind: fc.constant("send" as const) }),
    fc.record({ kind: fc.constant("usage" as const), inputTokens: fc.integer({ min: 1, max: 5_000 }) }),
  );

  it("counts a compaction's summary anew even when the request keeps its length and its last item", () => {
    const account = new ContextAccount();
    const [a, b, c] = [userMessage("first question"), assistantMessage("an answer"), userMessage("next")];
    account.sending([a!, b!, c!]);
    const summary = userMessage("a summary of the first question, much longer than the question was");
    account.sending([summary, b!, c!]);
    expect(account.lastSentTokens).toBe(estimateItemsTokens([summary, b!, c!]));
  });

  it("always equals an estimate of the whole request, whether the history grew or was compacted in between", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const account = new ContextAccount();
        account.setOverhead("You are terse.", []);
        const state = emptyState();
        // The ratio the account applies, followed from the usage it is told (bounds as in the account).
        let ratio = 1;
        let sentEstimate: number | null = null;
        for (const s of steps) {
          switch (s.kind) {
            case "append":
              state.history.push(
                ...s.texts.map((text, i) => (i % 2 === 0 ? userMessage(text) : assistantMessage(text))),
              );
              break;
            case "compact":
              // A compaction puts its summary in place of the oldest `drop` items (a new array);
              // with one item dropped the request keeps its length and its last item.
              state.history = [userMessage(s.summary), ...state.history.slice(s.drop)];
              break;
            case "send": {
              // Each request is a copy of the history, as the worker sends it.
              const items = [...state.history];
              account.sending(items);
              sentEstimate = estimateItemsTokens(items) + estimateTextTokens("You are terse.");
              expect(account.lastSentTokens).toBe(Math.ceil(sentEstimate * ratio));
              break;
            }
            case "usage":
              account.observe(state, { input_tokens: s.inputTokens });
              if (sentEstimate !== null && sentEstimate > 0)
                ratio = Math.min(4, Math.max(0.25, s.inputTokens / sentEstimate));
              sentEstimate = null;
              break;
            default: {
              const unreachable: never = s;
              throw new Error(`unknown step ${JSON.stringify(unreachable)}`);
            }
          }
        }
      }),
    );
  });
});
