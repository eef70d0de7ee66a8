/**
 * The OpenAPI 3.1 document of the daemon's HTTP API, generated from the routes as registered:
 * their paths and methods, their TypeBox schemas (path and query parameters, bodies, answers
 * per status and media type), their `config.doc` words, who may call them (`config.public`),
 * and the problem JSON every error answer carries.
 *
 * Boundary rule: reads route options only; it knows no route by name. Schemas given a name
 * (src/api/schemas/named-schema.ts) are written once under `components.schemas` and referred to
 * by `$ref`. An event stream's media type is `text/event-stream` with a string body; the JSON
 * of each SSE `data:` line is the schema under `x-sse-data`.
 */
import type { RouteOptions } from "fastify";
import { csrfHeaderName, sessionCookieName } from "../../api/browser-login.js";
import { problemContentType } from "../../api/problem.js";
import { schemaName } from "../../api/schemas/named-schema.js";
import { ProblemSchema } from "../../api/schemas/problem.js";
import { requiredRole } from "./route-access.js";
import type { RouteDoc } from "./route-config.js";

/** What the document says of the API as a whole. */
export interface DocumentInfo {
  version: string;
  protocol: number;
  /** The port the daemon listens on (the session cookie's name carries it). */
  port: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const methodsInOrder = ["GET", "PUT", "POST", "DELETE", "PATCH"] as const;

/** The document for `routes` (every route registered on the app, 405 placeholders included). */
export function openApiDocument(routes: readonly RouteOptions[], info: DocumentInfo): JsonObject {
  const components = new Map<string, Json>();
  const refer = (schema: unknown): Json => schemaJson(schema, components);
  const paths: Record<string, JsonObject> = {};
  const sorted = [...routes].sort((a, b) => a.url.localeCompare(b.url));
  for (const route of sorted) {
    if (route.config?.allow !== undefined) continue;
    for (const method of [route.method].flat()) {
      if (!(methodsInOrder as readonly string[]).includes(method)) continue;
      const path = route.url.replace(/:([A-Za-z_]+)/g, "{$1}");
      paths[path] ??= {};
      paths[path][method.toLowerCase()] = operation(route, method, path, refer);
    }
  }
  refer(ProblemSchema);
  return {
    openapi: "3.1.0",
    info: {
      title: "Skein daemon HTTP API",
      version: info.version,
      description:
        `Protocol ${info.protocol}. The whole contract in prose, with the ingress checks, streams and ` +
        "resumption rules, is docs/http-api.md in the Skein repository. Every error answer is " +
        `\`${problemContentType}\` (components.schemas.Problem: one alternative per code, with its fixed ` +
        "status). Routes that can stream answer `Accept: text/event-stream` with SSE frames: each frame's " +
        "`id` is `<generation>.<cursor>` and its `data` is the JSON described under the media type's " +
        "`x-sse-data`; resume with `Last-Event-ID` or `after_generation`/`after_seq`.",
    },
    servers: [{ url: `http://127.0.0.1:${info.port}` }],
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
    components: {
      schemas: Object.fromEntries([...components.entries()].sort(([a], [b]) => a.localeCompare(b))),
      responses: {
        Problem: {
          description: "an error (problem JSON)",
          content: { [problemContentType]: { schema: { $ref: "#/components/schemas/Problem" } } },
        },
      },
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "the token from $SKEIN_HOME/daemon.json (programs)",
        },
        cookie: {
          type: "apiKey",
          in: "cookie",
          name: sessionCookieName(info.port),
          description: "the HttpOnly cookie a one-time login link (`skein web`) sets (browsers)",
        },
        csrf: {
          type: "apiKey",
          in: "header",
          name: csrfHeaderName,
          description:
            "with the cookie, on every request but GET and HEAD: the login's token from GET /web/session",
        },
      },
    },
  };
}

function operation(
  route: RouteOptions,
  method: string,
  path: string,
  refer: (schema: unknown) => Json,
): JsonObject {
  const doc: RouteDoc | undefined = route.config?.doc;
  const schema = (route.schema ?? {}) as {
    params?: unknown;
    querystring?: unknown;
    body?: unknown;
    response?: Record<string, unknown>;
  };
  const parameters: Json[] = [
    ...parametersOf(schema.params, "path", refer),
    ...parametersOf(schema.querystring, "query", refer),
    ...(doc?.headers ?? []).map((header) => ({
      name: header.name,
      in: "header",
      required: header.required === true,
      description: header.description,
      schema: { type: "string" },
    })),
  ];
  const op: JsonObject = {
    operationId: `${method.toLowerCase()}${path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? "").toUpperCase())}`,
    summary: doc?.summary ?? "",
  };
  if (doc?.description !== undefined) op.description = doc.description;
  if (parameters.length > 0) op.parameters = parameters;
  if (schema.body !== undefined) {
    op.requestBody = { required: true, content: { "application/json": { schema: refer(schema.body) } } };
  }
  const responses: JsonObject = {};
  for (const [status, answer] of Object.entries(schema.response ?? {})) {
    responses[status] = responseOf(answer, route.config?.eventStream === true, refer);
  }
  responses.default = { $ref: "#/components/responses/Problem" };
  op.responses = responses;
  // Who may call it: `public`, or the least role (route-access.ts); what a session-bound token may.
  op["x-skein-role"] = route.config?.public === true ? "public" : requiredRole(route.config ?? {});
  if (route.config?.boundTokens !== undefined) op["x-skein-bound-tokens"] = route.config.boundTokens;
  if (route.config?.public === true) op.security = [];
  else if (doc?.tokenOnly === true) op.security = [{ bearer: [] }];
  else if (method !== "GET") op.security = [{ bearer: [] }, { cookie: [], csrf: [] }];
  return op;
}

function parametersOf(schema: unknown, where: "path" | "query", refer: (schema: unknown) => Json): Json[] {
  if (typeof schema !== "object" || schema === null) return [];
  const { properties, required } = schema as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(properties ?? {}).map(([name, property]) => {
    const described = property as { description?: string };
    return {
      name,
      in: where,
      required: where === "path" || (required ?? []).includes(name),
      ...(described.description === undefined ? {} : { description: described.description }),
      schema: refer(property),
    };
  });
}

/** One status's answer: `{content: {media: {schema}}}` as declared, or a JSON schema (a null one: no body). */
function responseOf(answer: unknown, streams: boolean, refer: (schema: unknown) => Json): JsonObject {
  const declared = answer as {
    description?: string;
    content?: Record<string, { schema: unknown }>;
    type?: unknown;
  };
  if (declared.content === undefined && declared.type === "null") {
    return { description: declared.description ?? "no body" };
  }
  const content: JsonObject = {};
  for (const [media, { schema }] of Object.entries(
    declared.content ?? { "application/json": { schema: answer } },
  )) {
    content[media] =
      media === "text/event-stream" && streams
        ? { schema: { type: "string" }, "x-sse-data": refer(schema) }
        : { schema: refer(schema) };
  }
  return { description: declared.description ?? "OK", content };
}

/** A schema as JSON, named schemas (the root too) replaced by `$ref`s and written to `components`. */
function schemaJson(schema: unknown, components: Map<string, Json>): Json {
  if (Array.isArray(schema)) return schema.map((item) => schemaJson(item, components));
  if (typeof schema !== "object" || schema === null) return schema as Json;
  const name = schemaName(schema);
  if (name !== undefined) {
    if (!components.has(name)) {
      components.set(name, null);
      components.set(name, plainJson(schema, components));
    }
    return { $ref: `#/components/schemas/${name}` };
  }
  return plainJson(schema, components);
}

function plainJson(schema: object, components: Map<string, Json>): Json {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) out[key] = schemaJson(value, components);
  return out;
}
