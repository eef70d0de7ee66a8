/**
 * The vendors' rules for tool declarations, whatever the model, as data: the name patterns of
 * each protocol, and Gemini's rules for `$ref` in a parameters schema (only `description` and
 * `default` beside it, and it must resolve).
 *
 * Boundary rule: pure checks of a request body.
 */
import {
  anthropicError,
  anyModel,
  type Body,
  geminiError,
  isObject,
  objects,
  openAiError,
  type VendorRule,
} from "./vendor-rule.js";

/** Tool names as OpenAI takes them (Chat Completions and Responses). */
const openAiToolName = /^[a-zA-Z0-9_-]{1,64}$/;
const anthropicToolName = /^[a-zA-Z0-9_-]{1,128}$/;
const geminiToolName = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** OpenAI's refusal of the first tool name it does not take; `chat` says where the name is. */
function openAiToolNames(body: Body, chat: boolean): ReturnType<VendorRule["check"]> {
  for (const [index, tool] of objects(body.tools).entries()) {
    const name = String(chat ? (isObject(tool.function) ? tool.function.name : "") : tool.name);
    const param = chat ? `tools[${index}].function.name` : `tools[${index}].name`;
    if (name.length > 64) {
      return openAiError(
        `Invalid '${param}': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`,
        param,
        "string_above_max_length",
      );
    }
    if (!openAiToolName.test(name)) {
      return openAiError(
        `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        param,
        "invalid_value",
      );
    }
  }
  return undefined;
}

/** Gemini's function declarations, every tool's. */
function declarations(body: Body): Body[] {
  return objects(body.tools).flatMap((tool) => objects(tool.functionDeclarations));
}

/** The first `$ref` problem under `node` (Gemini's message), or undefined. */
function geminiReferenceProblem(node: unknown, root: Body, at: string): string | undefined {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) {
      const problem = geminiReferenceProblem(item, root, `${at}.${index}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    if (Object.keys(node).some((key) => !["$ref", "description", "default"].includes(key))) {
      const name = ref.slice(ref.lastIndexOf("/") + 1);
      return `$ref '${name}' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it`;
    }
    let target: unknown = root;
    for (const token of ref
      .replace(/^#\/?/, "")
      .split("/")
      .filter((part) => part !== "")) {
      target = isObject(target) ? target[token] : undefined;
    }
    if (!ref.startsWith("#") || target === undefined)
      return `reference to undefined schema at ${at.slice(1)}`;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === "enum" || key === "const" || key === "default" || key === "examples") continue;
    const problem = geminiReferenceProblem(value, root, `${at}.${key}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

export const toolRules: readonly VendorRule[] = [
  {
    id: "openai.chat.tool-name-pattern",
    protocol: "chat_completions",
    source:
      "OpenAI 400 (param tools[N].function.name): Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'. (and string_above_max_length past 64)",
    applies: anyModel,
    check: (body) => openAiToolNames(body, true),
  },
  {
    id: "openai.responses.tool-name-pattern",
    protocol: "responses",
    source:
      "OpenAI 400 (param tools[N].name): Invalid 'tools[0].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'. (and string_above_max_length past 64)",
    applies: anyModel,
    check: (body) => openAiToolNames(body, false),
  },
  {
    id: "anthropic.tool-name-pattern",
    protocol: "anthropic",
    source: "Anthropic 400: tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    applies: anyModel,
    check(body) {
      const index = objects(body.tools).findIndex((tool) => !anthropicToolName.test(String(tool.name)));
      return index < 0
        ? undefined
        : anthropicError(`tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    },
  },
  {
    id: "gemini.tool-name-pattern",
    protocol: "gemini",
    source:
      "Gemini API 400: * GenerateContentRequest.tools[0].function_declarations[N].name: Invalid function name. Must start with a letter or an underscore. …",
    applies: anyModel,
    check(body) {
      const index = declarations(body).findIndex(
        (declaration) => !geminiToolName.test(String(declaration.name)),
      );
      return index < 0
        ? undefined
        : geminiError(
            `* GenerateContentRequest.tools[0].function_declarations[${index}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.`,
          );
    },
  },
  {
    id: "gemini.schema-references",
    protocol: "gemini",
    source:
      "Gemini API 400: $ref 'X' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it (also: reference to undefined schema at …)",
    applies: anyModel,
    check(body) {
      for (const declaration of declarations(body)) {
        const schema = declaration.parametersJsonSchema;
        if (!isObject(schema)) continue;
        const problem = geminiReferenceProblem(schema, schema, "");
        if (problem !== undefined) return geminiError(problem);
      }
      return undefined;
    },
  },
];
