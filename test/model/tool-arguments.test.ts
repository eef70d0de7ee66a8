import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/model/json.js";
import { parseToolArguments, toolArgumentsObject } from "../../src/model/tool-arguments.js";

const notObject = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string(),
  fc.array(fc.jsonValue({ maxDepth: 2 })),
);

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe("parseToolArguments", () => {
  it("reads any JSON object as its value, whitespace around it or not", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
        fc.boolean(),
        (value, spaced) => {
          const text = spaced ? ` \n${JSON.stringify(value, null, 2)}\t` : JSON.stringify(value);
          const expected = JSON.parse(JSON.stringify(value)) as JsonValue;
          expect(parseToolArguments(text)).toEqual({ kind: "object", value: expected });
          expect(toolArgumentsObject(text)).toEqual(expected);
        },
      ),
    );
  });

  it("reads any other JSON value as not_object, which has no arguments object", () => {
    fc.assert(
      fc.property(notObject, (value) => {
        const text = JSON.stringify(value);
        expect(parseToolArguments(text)).toEqual({
          kind: "not_object",
          value: JSON.parse(text) as JsonValue,
        });
        expect(toolArgumentsObject(text)).toBeNull();
      }),
    );
  });

  it("never throws: text that is no JSON is invalid_json with JSON.parse's message, blank when only whitespace", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const args = parseToolArguments(text);
        if (isJson(text)) {
          expect(args.kind).not.toBe("invalid_json");
          return;
        }
        expect(args).toEqual({ kind: "invalid_json", blank: text.trim() === "", detail: expect.any(String) });
        expect(toolArgumentsObject(text)).toBeNull();
      }),
    );
  });

  it("says why a cut-off or empty call is no JSON", () => {
    expect(parseToolArguments("")).toMatchObject({ kind: "invalid_json", blank: true });
    expect(parseToolArguments("  \n")).toMatchObject({ kind: "invalid_json", blank: true });
    const cut = parseToolArguments('{"path": "a.t');
    expect(cut).toMatchObject({ kind: "invalid_json", blank: false });
    expect(cut.kind === "invalid_json" && cut.detail.length > 0).toBe(true);
  });
});
