/**
 * A tool's input schema as Gemini's `parametersJsonSchema` takes it. Gemini accepts JSON Schema
 * there, but refuses a node that has `$ref` beside anything other than `description` and
 * `default`, and a `$ref` it cannot resolve ("reference to undefined schema"); schemas made by
 * zod, pydantic and friends (what MCP servers send) are full of both. So local references
 * (`#/$defs/...`, `#/definitions/...`, any `#/...` pointer) are inlined, the node's own keywords
 * kept over the referenced ones, a recursive or foreign reference becomes `{}` (any value), and
 * `$schema`, `$defs` and `definitions` are dropped once nothing points into them.
 *
 * Boundary rule: pure; the input is never modified. Values of data keywords (`enum`, `const`,
 * `default`, `examples`) and property names are copied as they are.
 */
import type { JsonObject, JsonValue } from "../../model/json.js";

/** Keywords whose value is one schema. */
const schemaKeywords = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
]);
/** Keywords whose value is a list of schemas. */
const schemaListKeywords = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/** Keywords whose value maps names to schemas. */
const schemaMapKeywords = new Set(["properties", "patternProperties", "dependentSchemas"]);
/** Keywords dropped from the result (their content is inlined where it was referenced). */
const droppedKeywords = new Set(["$schema", "$defs", "definitions", "$ref"]);

/** How deep references may nest before the rest is left as `{}`. */
const maxReferenceDepth = 32;

/** `schema` with its local references inlined, ready for `parametersJsonSchema`. */
export function geminiParametersSchema(schema: JsonObject): JsonObject {
  return inlineSchema(schema, schema, []);
}

function inlineSchema(node: JsonObject, root: JsonObject, trail: readonly string[]): JsonObject {
  let result: JsonObject = {};
  const ref = node.$ref;
  if (typeof ref === "string") {
    const target =
      trail.length < maxReferenceDepth && !trail.includes(ref) ? resolvePointer(root, ref) : undefined;
    if (isObject(target)) result = inlineSchema(target, root, [...trail, ref]);
  }
  for (const [keyword, value] of Object.entries(node)) {
    if (droppedKeywords.has(keyword)) continue;
    result[keyword] = inlineKeyword(keyword, value, root, trail);
  }
  return result;
}

function inlineKeyword(
  keyword: string,
  value: JsonValue,
  root: JsonObject,
  trail: readonly string[],
): JsonValue {
  if (schemaKeywords.has(keyword)) return isObject(value) ? inlineSchema(value, root, trail) : value;
  if (schemaListKeywords.has(keyword) && Array.isArray(value)) {
    return value.map((item) => (isObject(item) ? inlineSchema(item, root, trail) : item));
  }
  if (schemaMapKeywords.has(keyword) && isObject(value)) {
    const map: JsonObject = {};
    for (const [name, item] of Object.entries(value)) {
      map[name] = isObject(item) ? inlineSchema(item, root, trail) : item;
    }
    return map;
  }
  return value;
}

/** The value at a same-document JSON pointer (`#/a/b`), or undefined. */
function resolvePointer(root: JsonObject, ref: string): JsonValue | undefined {
  if (!ref.startsWith("#")) return undefined;
  const pointer = ref.slice(1);
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  let current: JsonValue | undefined = root;
  for (const raw of pointer.slice(1).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return undefined;
  }
  return current;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
