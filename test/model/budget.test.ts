import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { budgetOf, budgetProblem } from "../../src/model/budget.js";

describe("budgetProblem", () => {
  it("accepts budgets with a limit and a known period, and fills in the default period", () => {
    expect(budgetProblem({ maxTokens: 100 }, "total")).toBeNull();
    expect(budgetProblem({ maxCostUsd: 2.5, period: "day" })).toBeNull();
    expect(budgetProblem({ maxTokens: 0, maxCostUsd: 0, period: "total" })).toBeNull();
    expect(budgetOf({ maxTokens: 100 }, "day")).toEqual({ maxTokens: 100, period: "day" });
  });

  it("names what is wrong with a budget that is not one", () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /must be an object/],
      [[1], /must be an object/],
      [{}, /must set "maxTokens", "maxCostUsd" or both/],
      [{ period: "day" }, /must set/],
      [{ maxTokens: -1 }, /"maxTokens" must be a whole number/],
      [{ maxTokens: 1.5 }, /"maxTokens" must be a whole number/],
      [{ maxTokens: "100" }, /"maxTokens" must be a whole number/],
      [{ maxCostUsd: -0.01 }, /"maxCostUsd" must be a number/],
      [{ maxCostUsd: Number.POSITIVE_INFINITY }, /"maxCostUsd" must be a number/],
      [{ maxTokens: 1, period: "week" }, /"period" must be one of total, day/],
      [{ maxTokens: 1, extra: true }, /unknown budget field "extra"/],
      [{ maxTokens: 1 }, /must name its "period"/],
    ];
    for (const [value, reason] of cases) expect(budgetProblem(value), JSON.stringify(value)).toMatch(reason);
  });

  it("never throws and accepts only objects with a limit, whatever it is given", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const problem = budgetProblem(value, "total");
        if (problem !== null) return;
        const record = value as Record<string, unknown>;
        expect(record.maxTokens !== undefined || record.maxCostUsd !== undefined).toBe(true);
      }),
    );
  });
});
