/**
 * Parses and validates a tool call's JSON arguments against the tool's input schema.
 *
 * Boundary rule: tools never look at raw argument text; they get a value that passed their
 * JSON Schema (2020-12, compiled once per tool, at its first call), or the call fails with
 * `invalid_argument`.
 *
 * Why at the first call: every tool kind is made when its module loads, so compiling there put
 * all of them, and Ajv's own compilation of the 2020-12 meta-schema (about 40 ms alone), into
 * every daemon start. Our schemas are not checked against the meta-schema at run time
 * (`validateSchema: false`); the tools' tests check each one against it instead, and `strict`
 * still refuses an unknown keyword when a schema compiles.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import type { JsonObject } from "../model/json.js";
import { parseToolArguments } from "../model/tool-arguments.js";
import { ToolError } from "../model/tools.js";

let sharedAjv: Ajv2020 | null = null;

/** The validator shared by all built-in tools, made when the first tool call needs it. */
function toolAjv(): Ajv2020 {
  if (sharedAjv !== null) return sharedAjv;
  // `strict` rejects typos in our own schemas.
  const ajv = new Ajv2020({ allErrors: true, strict: true, validateSchema: false });
  // ajv-formats is CommonJS: under NodeNext its default import is the module object.
  formatsPlugin.default(ajv);
  sharedAjv = ajv;
  return ajv;
}

/** A function that turns a call's argument text into validated input, or throws `invalid_argument`. */
export type ToolInputParser<T> = (inputJson: string) => T;

/** A parser for `toolName`'s arguments, compiling `schema` once, when it first parses. */
export function toolInputParser<T>(toolName: string, schema: JsonObject): ToolInputParser<T> {
  let compiled: ValidateFunction<T> | null = null;
  return (inputJson: string): T => {
    const args = parseToolArguments(inputJson);
    if (args.kind === "invalid_json" && !args.blank) {
      throw new ToolError("invalid_argument", `${toolName}: arguments are not valid JSON (${args.detail})`);
    }
    // Blank arguments are a call without arguments.
    const value = args.kind === "invalid_json" ? {} : args.value;
    compiled ??= toolAjv().compile<T>(schema);
    const validate = compiled;
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
