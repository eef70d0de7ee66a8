import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProviderConfigError, parseProviderConfig } from "../../src/home/provider-config.js";

const parse = (onUnknownOutcome: unknown) =>
  parseProviderConfig(JSON.stringify({ providers: {}, onUnknownOutcome }), "/h/config.json").onUnknownOutcome;

const toolName = fc.string({ minLength: 1, maxLength: 40 });
const action = fc.constantFrom("tell_model", "ask");

describe("config.json's onUnknownOutcome", () => {
  it("reads an action per tool name and `*`, and leaves the key out when the file does", () => {
    expect(parse({ run_command: "ask", "*": "tell_model" })).toEqual({
      run_command: "ask",
      "*": "tell_model",
    });
    expect(parse({})).toEqual({});
    expect(parseProviderConfig(JSON.stringify({ providers: {} }), "/h/config.json").onUnknownOutcome).toBe(
      undefined,
    );
  });

  it("reads back every well-formed section as written (a tool named __proto__ stays a plain key)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(toolName, fc.constant("__proto__")), action), (section) => {
        expect({ ...parse(section) }).toEqual({ ...section });
      }),
    );
  });

  it("refuses a malformed section, naming where", () => {
    const cases: Array<[unknown, RegExp]> = [
      [[], /"onUnknownOutcome" must be an object/],
      ["ask", /"onUnknownOutcome" must be an object/],
      [null, /"onUnknownOutcome" must be an object/],
      [{ run_command: "retry" }, /"onUnknownOutcome.run_command" must be one of tell_model, ask/],
      [{ "*": true }, /"onUnknownOutcome.\*" must be one of tell_model, ask/],
      [{ "": "ask" }, /a tool name must be 1-256 characters/],
      [{ ["x".repeat(257)]: "ask" }, /a tool name must be 1-256 characters/],
    ];
    for (const [section, reason] of cases) {
      expect(() => parse(section), JSON.stringify(section)).toThrow(ProviderConfigError);
      expect(() => parse(section)).toThrow(reason);
    }
  });

  it("refuses any value that is not one of the two actions", () => {
    fc.assert(
      fc.property(
        toolName,
        fc.jsonValue().filter((value) => value !== "tell_model" && value !== "ask"),
        (tool, value) => {
          expect(() => parse({ [tool]: value })).toThrow(ProviderConfigError);
        },
      ),
    );
  });
});
