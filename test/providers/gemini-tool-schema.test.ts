import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/model/json.js";
import { geminiParametersSchema } from "../../src/providers/gemini/tool-schema.js";

describe("Gemini tool parameter schemas", () => {
  it("inlines local references, keeping the node's own keywords, and drops $schema and the definitions", () => {
    const schema: JsonObject = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      $defs: { Id: { type: "string", description: "an id", pattern: "^it-" } },
      definitions: { Pair: { type: "array", items: { $ref: "#/$defs/Id" }, minItems: 2 } },
      properties: {
        id: { $ref: "#/$defs/Id", title: "Item id", description: "the id" },
        pair: { $ref: "#/definitions/Pair" },
        either: { anyOf: [{ $ref: "#/$defs/Id" }, { type: "null" }] },
        $defs: { type: "boolean" },
      },
      required: ["id"],
      additionalProperties: false,
    };
    const original = structuredClone(schema);
    expect(geminiParametersSchema(schema)).toEqual({
      type: "object",
      properties: {
        id: { type: "string", description: "the id", pattern: "^it-", title: "Item id" },
        pair: {
          type: "array",
          items: { type: "string", description: "an id", pattern: "^it-" },
          minItems: 2,
        },
        either: { anyOf: [{ type: "string", description: "an id", pattern: "^it-" }, { type: "null" }] },
        // A property may be called "$defs": property names are not keywords.
        $defs: { type: "boolean" },
      },
      required: ["id"],
      additionalProperties: false,
    });
    expect(schema).toEqual(original);
  });

  it("turns a recursive or foreign reference into any value, and leaves data keywords alone", () => {
    const schema: JsonObject = {
      type: "object",
      $defs: { Node: { type: "object", properties: { child: { $ref: "#/$defs/Node" } } } },
      properties: {
        tree: { $ref: "#/$defs/Node" },
        remote: { $ref: "https://example.com/schema.json", description: "elsewhere" },
        missing: { $ref: "#/$defs/Nope" },
        kind: { enum: [{ $ref: "#/not-a-schema" }], default: { $ref: "data" } },
      },
    };
    expect(geminiParametersSchema(schema)).toEqual({
      type: "object",
      properties: {
        tree: { type: "object", properties: { child: {} } },
        remote: { description: "elsewhere" },
        missing: {},
        kind: { enum: [{ $ref: "#/not-a-schema" }], default: { $ref: "data" } },
      },
    });
  });

  it("leaves a schema without references as it is", () => {
    const schema: JsonObject = {
      type: "object",
      properties: { path: { type: "string" }, limit: { type: "integer", minimum: 1 } },
      required: ["path"],
    };
    expect(geminiParametersSchema(schema)).toEqual(schema);
  });
});
