import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { literalPattern, matchesWildcard } from "../../../src/daemon/approval/wildcard-pattern.js";

/** Text rich in the characters patterns treat specially. */
const tricky = fc.string({
  unit: fc.constantFrom("a", "b", "*", "\\", "/", " ", ";", "\n", "é", "😀"),
  maxLength: 12,
});

/** The same matching written as a regular expression, to check the matcher against. */
function reference(pattern: string, text: string): boolean {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    const next = pattern[i + 1];
    if (char === "\\" && (next === "*" || next === "\\")) {
      source += `\\${next}`;
      i++;
    } else if (char === "*") {
      source += "[\\s\\S]*";
    } else {
      source += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`, "u").test(text);
}

describe("wildcard patterns", () => {
  it.each([
    ["git status*", "git status", true],
    ["git status*", "git status --short", true],
    ["git status*", "git statu", false],
    ["git status*", "  git status", false],
    ["*", "", true],
    ["*", "anything at all\nacross lines", true],
    ["", "", true],
    ["", "x", false],
    ["src/*.ts", "src/deep/dir/a.ts", true],
    ["src/*.ts", "src/a.tsx", false],
    ["a*b*c", "abc", true],
    ["a*b*c", "aXbYbZc", true],
    ["a*b*c", "acb", false],
    ["ab*ba", "aba", false],
    ["\\*", "*", true],
    ["\\*", "x", false],
    ["a\\\\*", "a\\anything", true],
    ["a\\b", "a\\b", true],
    ["rm *", "rm -rf /", true],
  ])("%j matches %j: %s", (pattern, text, expected) => {
    expect(matchesWildcard(pattern, text)).toBe(expected);
  });

  it("agrees with a regular expression on any pattern and text", () => {
    fc.assert(
      fc.property(tricky, tricky, (pattern, text) => {
        expect(matchesWildcard(pattern, text)).toBe(reference(pattern, text));
      }),
      { numRuns: 2000 },
    );
  });

  it("makes a literal pattern that matches exactly its text", () => {
    fc.assert(
      fc.property(tricky, tricky, (text, other) => {
        expect(matchesWildcard(literalPattern(text), text)).toBe(true);
        expect(matchesWildcard(literalPattern(text), other)).toBe(other === text);
      }),
      { numRuns: 2000 },
    );
  });

  it("matches a prefix pattern exactly when the text starts with the prefix", () => {
    fc.assert(
      fc.property(tricky, tricky, (prefix, text) => {
        expect(matchesWildcard(`${literalPattern(prefix)}*`, text)).toBe(text.startsWith(prefix));
      }),
    );
  });

  it("answers quickly for patterns with many stars against long texts", () => {
    const started = performance.now();
    expect(matchesWildcard(`${"a*".repeat(200)}b`, "a".repeat(20_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
