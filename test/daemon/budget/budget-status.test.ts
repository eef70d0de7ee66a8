import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  allowsRequest,
  budgetStatus,
  periodEnd,
  periodStartDay,
  tightestStatus,
} from "../../../src/daemon/budget/budget-status.js";
import type { Budget } from "../../../src/model/budget.js";

const day = 86_400_000;

const budgets: fc.Arbitrary<Budget> = fc
  .record({
    maxTokens: fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
    maxCostUsd: fc.option(fc.double({ min: 0, max: 1000, noNaN: true }), { nil: undefined }),
    period: fc.constantFrom("total" as const, "day" as const),
  })
  .filter((budget) => budget.maxTokens !== undefined || budget.maxCostUsd !== undefined)
  .map((budget) => {
    const shaped: Budget = { period: budget.period };
    if (budget.maxTokens !== undefined) shaped.maxTokens = budget.maxTokens;
    if (budget.maxCostUsd !== undefined) shaped.maxCostUsd = budget.maxCostUsd;
    return shaped;
  });

const usages = fc.record({
  tokens: fc.integer({ min: 0, max: 2_000_000 }),
  costUsd: fc.integer({ min: 0, max: 2_000_000_000 }).map((nanos) => nanos / 1e9),
});

describe("a budget's status", () => {
  it("leaves max(0, limit - used) of each limit, and is exhausted exactly when one reaches 0", () => {
    fc.assert(
      fc.property(budgets, usages, fc.integer({ min: 0, max: 4e12 }), (budget, used, now) => {
        const status = budgetStatus("session", budget, used, now);
        if (budget.maxTokens === undefined) expect(status.remaining.tokens).toBeNull();
        else expect(status.remaining.tokens).toBe(Math.max(0, budget.maxTokens - used.tokens));
        if (budget.maxCostUsd === undefined) expect(status.remaining.costUsd).toBeNull();
        else expect(status.remaining.costUsd).toBeCloseTo(Math.max(0, budget.maxCostUsd - used.costUsd), 8);
        expect(status.exhausted).toBe(status.remaining.tokens === 0 || status.remaining.costUsd === 0);
      }),
    );
  });

  it("never has more left after more was used (what is left only shrinks as usage grows)", () => {
    fc.assert(
      fc.property(budgets, usages, usages, (budget, first, more) => {
        const later = { tokens: first.tokens + more.tokens, costUsd: first.costUsd + more.costUsd };
        const before = budgetStatus("profile", budget, first, 0);
        const after = budgetStatus("profile", budget, later, 0);
        if (before.remaining.tokens !== null)
          expect(after.remaining.tokens!).toBeLessThanOrEqual(before.remaining.tokens);
        if (before.remaining.costUsd !== null)
          expect(after.remaining.costUsd!).toBeLessThanOrEqual(before.remaining.costUsd + 1e-12);
        if (before.exhausted) expect(after.exhausted).toBe(true);
        if (!allowsRequest(before, { tokens: 0, costUsd: 0 })) expect(after.exhausted).toBe(true);
      }),
    );
  });

  it("lets a request go only when what it is expected to use fits in what is left", () => {
    const budget: Budget = { maxTokens: 250, period: "total" };
    const at = (used: number, expected: number) =>
      allowsRequest(budgetStatus("session", budget, { tokens: used, costUsd: 0 }, 0), {
        tokens: expected,
        costUsd: 0,
      });
    expect(at(0, 0)).toBe(true);
    expect(at(100, 100)).toBe(true);
    expect(at(150, 100)).toBe(true);
    expect(at(200, 100)).toBe(false);
    expect(at(250, 0)).toBe(false);
    expect(at(249, 0)).toBe(true);
    expect(
      allowsRequest(
        budgetStatus("session", { maxTokens: 0, period: "total" }, { tokens: 0, costUsd: 0 }, 0),
        { tokens: 0, costUsd: 0 },
      ),
    ).toBe(false);
    const cost: Budget = { maxCostUsd: 0.3, period: "total" };
    // 0.1 + 0.2 is not 0.3 in floating point; costs are compared in nano-dollars.
    expect(
      allowsRequest(budgetStatus("session", cost, { tokens: 0, costUsd: 0.1 }, 0), {
        tokens: 0,
        costUsd: 0.2,
      }),
    ).toBe(true);
    expect(
      allowsRequest(budgetStatus("session", cost, { tokens: 0, costUsd: 0.2 }, 0), {
        tokens: 0,
        costUsd: 0.2,
      }),
    ).toBe(false);
  });

  it("counts a day budget from the current UTC midnight to the next, and a total budget for ever", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), (now) => {
        const daily: Budget = { maxTokens: 1, period: "day" };
        const start = periodStartDay(daily, now)!;
        expect(start * day).toBeLessThanOrEqual(now);
        expect(periodEnd(daily, now)).toBe((start + 1) * day);
        expect(periodEnd(daily, now)! > now).toBe(true);
        expect(periodEnd(daily, now)! - now).toBeLessThanOrEqual(day);
        expect(periodStartDay({ maxTokens: 1, period: "total" }, now)).toBeNull();
        expect(periodEnd({ maxTokens: 1, period: "total" }, now)).toBeNull();
      }),
    );
    const justBefore = Date.parse("2026-12-06T23:59:59.999Z");
    expect(new Date(periodEnd({ maxTokens: 1, period: "day" }, justBefore)!).toISOString()).toBe(
      "2026-12-07T00:00:00.000Z",
    );
    expect(periodStartDay({ maxTokens: 1, period: "day" }, justBefore + 1)).toBe(
      periodStartDay({ maxTokens: 1, period: "day" }, justBefore)! + 1,
    );
  });

  it("shows the exhausted budget, else the one with the least share left", () => {
    const roomy = budgetStatus(
      "session",
      { maxTokens: 1000, period: "total" },
      { tokens: 100, costUsd: 0 },
      0,
    );
    const tight = budgetStatus("profile", { maxCostUsd: 1, period: "day" }, { tokens: 0, costUsd: 0.8 }, 0);
    const gone = budgetStatus("schedule", { maxTokens: 10, period: "total" }, { tokens: 10, costUsd: 0 }, 0);
    expect(tightestStatus([])).toBeNull();
    expect(tightestStatus([roomy, tight])?.scope).toBe("profile");
    expect(tightestStatus([roomy, gone, tight])?.scope).toBe("schedule");
  });
});
