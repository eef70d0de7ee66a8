/** A tool kind: one name and schema, definitions whose calls run only with input that passed the schema. */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/model/json.js";
import { type ToolContext, ToolError } from "../../src/model/tools.js";
import { toolKind, workspaceTool } from "../../src/tools/tool-kind.js";

interface EchoInput {
  text: string;
}

const schema: JsonObject = {
  type: "object",
  properties: { text: { type: "string", minLength: 1 } },
  required: ["text"],
  additionalProperties: false,
};

const context: ToolContext = { call_id: "call_1", signal: new AbortController().signal };

describe("toolKind", () => {
  it("gives each definition the kind's name and schema and its own description", () => {
    const echo = toolKind<EchoInput>("echo", schema);
    const loud = echo("Echoes loudly.", async (input) => input.text.toUpperCase())();
    const quiet = echo("Echoes quietly.", async (input) => input.text.toLowerCase())();
    expect(loud.meta).toEqual({ name: "echo", description: "Echoes loudly.", input_schema: schema });
    expect(quiet.meta.description).toBe("Echoes quietly.");
  });

  it("runs a call with its parsed input and context", async () => {
    const seen: Array<[EchoInput, ToolContext]> = [];
    const { tool } = toolKind<EchoInput>("echo", schema)("Echoes.", async (input, callContext) => {
      seen.push([input, callContext]);
      return input.text;
    })();
    await expect(tool.execute('{"text":"hi"}', context)).resolves.toBe("hi");
    expect(seen).toEqual([[{ text: "hi" }, context]]);
  });

  it("refuses arguments that are not JSON or break the schema, without running the call", async () => {
    let runs = 0;
    const { tool } = toolKind<EchoInput>("echo", schema)("Echoes.", async (input) => {
      runs++;
      return input.text;
    })();
    for (const bad of ["{", '{"text":""}', '{"text":"a","extra":1}', "{}"]) {
      const failure = tool.execute(bad, context);
      await expect(failure).rejects.toBeInstanceOf(ToolError);
      await expect(failure).rejects.toMatchObject({ kind: "invalid_argument" });
    }
    expect(runs).toBe(0);
  });

  it("runs a workspace tool's calls in its workspace, with no hidden paths unless given", async () => {
    const where = workspaceTool<EchoInput>("where", schema, "Says where.", async (workspace, hidden, input) =>
      [workspace, hidden.join(","), input.text].join("|"),
    );
    expect(where("/work/a")().meta).toEqual({
      name: "where",
      description: "Says where.",
      input_schema: schema,
    });
    await expect(where("/work/a")().tool.execute('{"text":"x"}', context)).resolves.toBe("/work/a||x");
    await expect(where("/work/b", ["/work/b/.skein"])().tool.execute('{"text":"y"}', context)).resolves.toBe(
      "/work/b|/work/b/.skein|y",
    );
  });
});
