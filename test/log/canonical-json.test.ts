import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalJson } from "../../src/log/canonical-json.js";
import { logArbitrary } from "./arbitraries.js";

function fromIeeeHex(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe("canonicalJson", () => {
  it("sorts keys by UTF-16 code units as in RFC 8785's sorting example", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("reproduces RFC 8785's main example byte for byte", () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it.each([
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ])("serializes the IEEE double %s as %s (RFC 8785 appendix B)", (hex, expected) => {
    expect(canonicalJson(fromIeeeHex(hex))).toBe(expected);
  });

  it("serializes the literal numbers the RFC discusses", () => {
    expect(canonicalJson([1e21, 333333333.3333333, -0, 5e-324, 1.7976931348623157e308, 1e-7, 100])).toBe(
      "[1e+21,333333333.3333333,0,5e-324,1.7976931348623157e+308,1e-7,100]",
    );
  });

  it.each([
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-Infinity", Number.NEGATIVE_INFINITY],
  ])("rejects %s with a typed error", (_name, value) => {
    expect(() => canonicalJson({ a: [value] })).toThrow(CanonicalJsonError);
  });

  it("names where a non-JSON value sits", () => {
    try {
      canonicalJson({ items: [{ ok: 1 }, { bad: Number.NaN }] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CanonicalJsonError);
      expect((error as CanonicalJsonError).location).toBe("$.items[1].bad");
      expect((error as Error).message).toContain("$.items[1].bad");
    }
  });

  it.each([
    ["a function", () => 1],
    ["a symbol", Symbol("s")],
    ["a bigint", 10n],
    ["a Date", new Date(0)],
    ["a Map", new Map()],
    ["an undefined array element", [1, undefined]],
  ])("rejects %s", (_name, value) => {
    expect(() => canonicalJson({ v: value })).toThrow(CanonicalJsonError);
  });

  it("rejects a top-level undefined", () => {
    expect(() => canonicalJson(undefined)).toThrow(CanonicalJsonError);
  });

  it("rejects circular values with a typed error instead of overflowing", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(CanonicalJsonError);
  });

  it("skips properties whose value is undefined, like JSON.stringify", () => {
    expect(canonicalJson({ b: 1, a: undefined, c: { d: undefined } })).toBe('{"b":1,"c":{}}');
  });

  it("accepts objects without a prototype", () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.z = 1;
    bare.a = "x";
    expect(canonicalJson(bare)).toBe('{"a":"x","z":1}');
  });

  it("escapes strings exactly as JSON.stringify does", () => {
    const text = 'q"b\\\n\t\u0000\u001f\u007f\u2028/é😀';
    expect(canonicalJson(text)).toBe(JSON.stringify(text));
  });

  it("escapes a lone surrogate like JSON.stringify so it still parses back to the same string", () => {
    const text = "cut\ud83d";
    expect(canonicalJson(text)).toBe('"cut\\ud83d"');
    expect(JSON.parse(canonicalJson(text))).toBe(text);
  });

  it("matches the canonicalize oracle on arbitrary JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it("matches the canonicalize oracle on arbitrary log entries", () => {
    fc.assert(
      fc.property(logArbitrary(6), (entries) => {
        for (const entry of entries) expect(canonicalJson(entry)).toBe(canonicalize(entry));
      }),
      { numRuns: 200 },
    );
  });

  it("is a fixed point: canonicalizing the parsed canonical text gives the same text", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "grapheme" }), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
