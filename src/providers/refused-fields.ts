/**
 * Which request fields a vendor's 4xx names, read from its error body, and the key a protocol's
 * optional fields are filed under. Vendors name a field three ways:
 * - OpenAI: `error.param` ("reasoning.summary", "include", "messages.[2].role");
 * - pydantic validators (Mistral, vLLM, other FastAPI servers): `detail[].loc`
 *   (["body", "stream_options"], ["body", "messages", 3, "assistant", "reasoning_content"]),
 *   possibly under `message` and possibly as a JSON string there, with `type: "extra_forbidden"`;
 * - Anthropic: the message starts with the path ("top_k: Extra inputs are not permitted").
 * A field key is the path's first name and its last name ("reasoning.summary",
 * "messages.reasoning_content", "stream_options"): indices and roles in between do not matter.
 *
 * Boundary rule: pure functions of an error body.
 */
import type { RefusedPath } from "../model/llm-client.js";
import { errorBodyRoot, isWireObject, objectsAt, stringAt, type WireObject } from "./wire-json.js";

/** The key a path (as a vendor spells it) is filed under. */
function fieldKey(path: readonly (string | number)[]): string | undefined {
  const names = path
    .flatMap((segment) => (typeof segment === "number" ? [] : segment.split(/[.[\]]+/)))
    .filter((name) => name.length > 0 && !/^\d+$/.test(name));
  if (names[0] === "body") names.shift();
  const first = names[0];
  if (first === undefined) return undefined;
  const last = names[names.length - 1]!;
  return names.length === 1 ? first : `${first}.${last}`;
}

/** The field keys an error body names (none when it names none). */
export function refusedFields(body: string): string[] {
  const root = errorBodyRoot(body);
  if (root === undefined) return [];
  const keys = new Set<string>();
  const error = isWireObject(root.error) ? root.error : root;
  const param = stringAt(error, "param");
  if (param !== undefined) addKey(keys, fieldKey([param]));
  for (const holder of [root, error]) {
    for (const detail of validationDetails(holder)) {
      const loc = detail.loc;
      if (Array.isArray(loc)) addKey(keys, fieldKey(loc.filter(isPathSegment)));
    }
  }
  const message = stringAt(error, "message");
  const pathed =
    message === undefined ? null : /^([A-Za-z_][\w.]*): Extra inputs are not permitted/.exec(message);
  if (pathed !== null) addKey(keys, fieldKey([pathed[1]!]));
  return [...keys];
}

/**
 * The request paths an error body names, each split into names and indices: OpenAI's `param`
 * ("messages.[3].content", "input[2]"), a validator's `loc` (without its leading "body"), and a
 * path the message starts with ("messages.3.content.0: unexpected `tool_use_id` …").
 */
export function refusedPaths(body: string): RefusedPath[] {
  const root = errorBodyRoot(body);
  if (root === undefined) return [];
  const paths: RefusedPath[] = [];
  const error = isWireObject(root.error) ? root.error : root;
  const param = stringAt(error, "param");
  if (param !== undefined) paths.push({ segments: pathSegments(param), from: "param" });
  for (const holder of error === root ? [root] : [root, error]) {
    for (const detail of validationDetails(holder)) {
      if (!Array.isArray(detail.loc)) continue;
      const segments = detail.loc
        .filter(isPathSegment)
        .flatMap((segment) => (typeof segment === "number" ? [segment] : pathSegments(segment)));
      if (segments[0] === "body") segments.shift();
      paths.push({ segments, from: "loc" });
    }
  }
  const message = stringAt(error, "message");
  const pathed = message === undefined ? null : /^([A-Za-z_]\w*(?:\.(?:[A-Za-z_]\w*|\d+))+):\s/.exec(message);
  if (pathed !== null) paths.push({ segments: pathSegments(pathed[1]!), from: "message" });
  return paths.filter((path) => path.segments.length > 0);
}

/** "messages.[3].content" or "input[2].content.0" as names and indices. */
function pathSegments(path: string): (string | number)[] {
  return path
    .split(/[.[\]]+/)
    .filter((part) => part.length > 0)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function addKey(keys: Set<string>, key: string | undefined): void {
  if (key !== undefined) keys.add(key);
}

function isPathSegment(value: unknown): value is string | number {
  return typeof value === "string" || typeof value === "number";
}

/** pydantic's `detail` list as text ("body.stream_options: Extra inputs are not permitted"), or undefined. */
export function validationText(holder: WireObject): string | undefined {
  const details = validationDetails(holder);
  if (details.length === 0) return undefined;
  return details
    .map((detail) => {
      const loc = Array.isArray(detail.loc) ? detail.loc.filter(isPathSegment).join(".") : "";
      const msg = stringAt(detail, "msg") ?? stringAt(detail, "type") ?? "invalid";
      return loc.length > 0 ? `${loc}: ${msg}` : msg;
    })
    .join("; ");
}

/** pydantic's `detail` list, at `detail`, at `message.detail`, or inside a JSON string `message`. */
function validationDetails(holder: WireObject): WireObject[] {
  const direct = objectsAt(holder, "detail");
  if (direct.length > 0) return direct;
  const message = holder.message;
  if (isWireObject(message)) return objectsAt(message, "detail");
  if (typeof message === "string" && message.trimStart().startsWith("{")) {
    try {
      const inner: unknown = JSON.parse(message);
      return isWireObject(inner) ? objectsAt(inner, "detail") : [];
    } catch {
      return [];
    }
  }
  return [];
}
