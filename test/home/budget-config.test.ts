import { describe, expect, it } from "vitest";
import { ProviderConfigError, parseProviderConfig } from "../../src/home/provider-config.js";

const parse = (budgets: unknown) =>
  parseProviderConfig(JSON.stringify({ providers: {}, budgets }), "/h/config.json").budgets;

describe("config.json's budgets", () => {
  it("reads a session default (period total unless given) and per-profile budgets (period day unless given)", () => {
    expect(
      parse({
        session: { maxTokens: 1000 },
        profiles: { work: { maxCostUsd: 20 }, home: { maxTokens: 5, period: "total" } },
      }),
    ).toEqual({
      session: { maxTokens: 1000, period: "total" },
      profiles: { work: { maxCostUsd: 20, period: "day" }, home: { maxTokens: 5, period: "total" } },
    });
    expect(parse({})).toEqual({});
  });

  it("refuses a malformed section, naming where", () => {
    const cases: Array<[unknown, RegExp]> = [
      [[], /"budgets" must be an object/],
      [{ sessions: {} }, /"budgets" has unknown key "sessions"/],
      [{ session: { maxTokens: -1 } }, /"budgets.session": "maxTokens" must be a whole number/],
      [{ session: {} }, /"budgets.session": a budget must set/],
      [{ profiles: [] }, /"budgets.profiles" must be an object/],
      [{ profiles: { work: { maxCostUsd: "5" } } }, /"budgets.profiles.work": "maxCostUsd" must be a number/],
      [{ profiles: { work: { maxTokens: 5, period: "hour" } } }, /"period" must be one of total, day/],
    ];
    for (const [budgets, reason] of cases) {
      expect(() => parse(budgets), JSON.stringify(budgets)).toThrow(ProviderConfigError);
      expect(() => parse(budgets)).toThrow(reason);
    }
  });
});
