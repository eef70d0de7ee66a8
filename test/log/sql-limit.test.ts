import { describe, expect, it } from "vitest";
import { limitClause } from "../../src/log/sql-limit.js";

describe("limitClause", () => {
  it("writes a non-negative integer limit into the text", () => {
    expect(limitClause(0)).toBe("LIMIT 0");
    expect(limitClause(100)).toBe("LIMIT 100");
  });

  it("refuses anything that is not a non-negative safe integer", () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      expect(() => limitClause(bad)).toThrow(RangeError);
    }
  });
});
