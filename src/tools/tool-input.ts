/**
 * Parses and validates a tool call's JSON arguments against the tool's input schema.
 *
 * Boundary rule: tools never look at raw argument text; they get a value that passed their
 * JSON Schema (2020-12, compiled once per tool), or the call fails with `invalid_argument`.
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import type { JsonObject } from "../model/json.js";
import { parseToolArguments } from "../model/tool-arguments.js";
import { ToolError } from "../model/tools.js";

/** One validator shared by all built-in tools; `strict` rejects typos in our own schemas. */
const ajv = new Ajv2020({ allErrors: true, strict: true });
// ajv-formats is CommonJS: under NodeNext its default import is the module object.
formatsPlugin.default(ajv);

/** A function that turns a call's argument text into validated input, or throws `invalid_argument`. */
export type ToolInputParser<T> = (inputJson: string) => T;

/** Compiles `schema` once and returns a parser for `toolName`'s arguments. */
export function toolInputParser<T>(toolName: string, schema: JsonObject): ToolInputParser<T> {
  const validate = ajv.compile<T>(schema);
  return (inputJson: string): T => {
    const args = parseToolArguments(inputJson);
    if (args.kind === "invalid_json" && !args.blank) {
      throw new ToolError("invalid_argument", `${toolName}: arguments are not valid JSON (${args.detail})`);
    }
    // Blank arguments are a call without arguments.
    const value = args.kind === "invalid_json" ? {} : args.value;
    if (validate(value)) return value;
    const problems = (validate.errors ?? []).map(describeProblem);
    throw new ToolError("invalid_argument", `${toolName}: invalid arguments: ${problems.join("; ")}`);
  };
}

function describeProblem(error: ErrorObject): string {
  const where =
    error.instancePath === "" ? "arguments" : `"${error.instancePath.slice(1).replaceAll("/", ".")}"`;
  switch (error.keyword) {
    case "additionalProperties":
      return `unknown property "${String(error.params.additionalProperty)}"`;
    case "required":
      return `missing required property "${String(error.params.missingProperty)}"`;
    default:
      return `${where} ${error.message ?? "is invalid"}`;
  }
}
