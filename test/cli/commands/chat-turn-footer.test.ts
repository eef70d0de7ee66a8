import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { SessionContext } from "../../../src/api/session-snapshot.js";
import { type TurnFooterFacts, turnFooter } from "../../../src/cli/commands/chat-turn-footer.js";

const plain = pc.createColors(false);

function facts(overrides: Partial<TurnFooterFacts> = {}): TurnFooterFacts {
  return {
    state: "completed",
    model: "gpt-test",
    usage: { prompt: 1200, completion: 80, cached: 0, total: 1280 },
    sessionTokens: 5000,
    context: null,
    ...overrides,
  };
}

function context(used: number, window: number): SessionContext {
  return {
    used_tokens: used,
    estimated: false,
    context_window: window,
    max_output_tokens: 4096,
    fill: window === 0 ? 0 : used / window,
    compact_threshold: 0.8,
    compacting: false,
    last_compaction: null,
    last_compaction_error: null,
    cost_usd: null,
    warnings: [],
  };
}

describe("the footer line after a chat turn", () => {
  it("gives the model, the turn's tokens and the session's", () => {
    expect(turnFooter(plain, facts())).toBe("── gpt-test · 1200 in / 80 out · session 5000 tokens");
  });

  it("says how full the context is when the session reports its window", () => {
    expect(turnFooter(plain, facts({ context: context(32_000, 128_000) }))).toBe(
      "── gpt-test · 1200 in / 80 out · session 5000 tokens · context 25% of 128k",
    );
    expect(turnFooter(plain, facts({ context: context(10, 0) }))).toBe(
      "── gpt-test · 1200 in / 80 out · session 5000 tokens",
    );
  });

  it("starts with how the turn ended when it did not complete", () => {
    expect(turnFooter(plain, facts({ state: "cancelled" }))).toMatch(/^── interrupted · /);
    expect(turnFooter(plain, facts({ state: "failed" }))).toMatch(/^── turn failed · /);
    expect(turnFooter(plain, facts({ state: "abandoned" }))).toMatch(
      /^── turn cut short by a daemon restart · /,
    );
  });

  it("leaves out the turn's tokens when it used none, and says when there is no model", () => {
    expect(
      turnFooter(plain, facts({ model: null, usage: { prompt: 0, completion: 0, cached: 0, total: 0 } })),
    ).toBe("── no model · session 5000 tokens");
  });
});
