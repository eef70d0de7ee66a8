/**
 * Real answers checked against the daemon's own OpenAPI document (`GET /openapi.json`): the
 * operation is found by method and path, the answer by status (else `default`) and media type,
 * and the body is validated with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses). An SSE frame's
 * `data` is validated against its media type's `x-sse-data`. The e2e harness runs every answer
 * and frame of the e2e suites through it.
 *
 * Boundary rule: test support; it knows the daemon only through the document and the answers.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

interface Operation {
  responses: Record<string, ResponseObject | { $ref: string }>;
}

interface ResponseObject {
  content?: Record<string, { schema?: unknown; "x-sse-data"?: unknown }>;
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, ResponseObject> };
}

const documentId = "skein-openapi";

/** Validates answers against one OpenAPI document. */
export class OpenApiCheck {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: false });
  readonly #compiled = new Map<string, ValidateFunction>();
  readonly #routes: Array<{ template: string; pattern: RegExp; literal: number }>;
  /** How many answers and frames were checked, by `<method> <path template> <status>` (frames: `frame <template>`). */
  readonly checked = new Map<string, number>();

  constructor(private readonly document: Document) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.#ajv);
    this.#ajv.addSchema({ ...(document as object), $id: documentId });
    this.#routes = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      literal: template.replace(/\{[^}]+\}/g, "").length,
    }));
  }

  /** Throw when an answer (status, Content-Type, body text) does not match the document. */
  checkAnswer(
    method: string,
    url: string,
    status: number,
    contentType: string | undefined,
    body: string,
  ): void {
    const { pointer, response } = this.#response(method, url, status);
    this.#count(`${method} ${this.templateOf(method, url) ?? "(unknown)"} ${status}`);
    const media = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
    const described = response.content;
    if (described === undefined) {
      if (body !== "")
        throw new Error(
          `${method} ${url} → ${status}: the document describes no body, got ${body.slice(0, 200)}`,
        );
      return;
    }
    const key = media in described ? media : "*/*" in described ? "*/*" : null;
    if (key === null) {
      throw new Error(
        `${method} ${url} → ${status}: media type ${media} is not in the document (${Object.keys(described).join(", ")})`,
      );
    }
    if (key === "*/*" || media.startsWith("text/html") || media === "text/event-stream") return;
    // A text/plain or script body (the metrics, the login page's script) is the string its
    // schema describes; the rest is JSON.
    const isText = media === "text/plain" || media === "text/javascript";
    this.#validate(
      `${pointer}/content/${pointerSegment(key)}/schema`,
      isText ? body : JSON.parse(body),
      `${method} ${url} → ${status}`,
    );
  }

  /** Throw when one SSE frame's `data` of a stream at `url` does not match the document. */
  checkFrame(url: string, data: string): void {
    const { pointer } = this.#response("GET", url, 200);
    this.#count(`frame ${this.templateOf("GET", url)}`);
    this.#validate(`${pointer}/content/text~1event-stream/x-sse-data`, JSON.parse(data), `frame of ${url}`);
  }

  /** The document's path template that `url` is an instance of for `method`, or null. */
  templateOf(method: string, url: string): string | null {
    const path = url.split("?")[0]!;
    const matches = this.#routes
      .filter(
        (route) => route.pattern.test(path) && this.document.paths[route.template]![method.toLowerCase()],
      )
      .sort((a, b) => b.literal - a.literal);
    return matches[0]?.template ?? null;
  }

  #count(key: string): void {
    this.checked.set(key, (this.checked.get(key) ?? 0) + 1);
  }

  #response(method: string, url: string, status: number): { pointer: string; response: ResponseObject } {
    const path = url.split("?")[0]!;
    const template = this.templateOf(method, url);
    const route = template === null ? undefined : { template };
    if (route === undefined) {
      // A path or method the API does not have: only its 404 or 405 problem answer is described.
      if (status !== 404 && status !== 405) {
        throw new Error(`${method} ${path} is not in the OpenAPI document, yet it answered ${status}`);
      }
      return {
        pointer: "#/components/responses/Problem",
        response: this.document.components.responses.Problem!,
      };
    }
    const operation = this.document.paths[route.template]![method.toLowerCase()]!;
    const key = String(status) in operation.responses ? String(status) : "default";
    let pointer = `#/paths/${pointerSegment(route.template)}/${method.toLowerCase()}/responses/${key}`;
    let response = operation.responses[key]!;
    if ("$ref" in response) {
      pointer = response.$ref;
      response = this.document.components.responses[response.$ref.split("/").pop()!]!;
    }
    return { pointer, response: response as ResponseObject };
  }

  #validate(pointer: string, value: unknown, what: string): void {
    let validate = this.#compiled.get(pointer);
    if (validate === undefined) {
      validate = this.#ajv.compile({ $ref: `${documentId}${pointer}` });
      this.#compiled.set(pointer, validate);
    }
    if (!validate(value)) {
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((error) => `${error.instancePath} ${error.message}`);
      throw new Error(
        `${what} does not match the OpenAPI document: ${errors.join("; ")}\n${JSON.stringify(value).slice(0, 500)}`,
      );
    }
  }
}

/** A JSON pointer segment. */
function pointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
