/** `GET /openapi.json`: the OpenAPI 3.1 document of every route the daemon registered. */
import { Type } from "typebox";
import { type HttpApp, routesOf } from "../http/create-http-app.js";
import { type DocumentInfo, openApiDocument } from "../http/openapi-document.js";
import { registerResource } from "../http/resource.js";

/** Register `GET /openapi.json`; the document is built at its first request (all routes are registered by then). */
export function registerOpenApiRoute(app: HttpApp, info: () => DocumentInfo): void {
  let document: ReturnType<typeof openApiDocument> | null = null;
  registerResource(app, "/openapi.json", {
    GET: {
      schema: {
        response: { 200: Type.Object({}, { description: "this document (OpenAPI 3.1)" }) },
      },
      config: {
        role: "viewer",
        boundTokens: "unscoped",
        doc: { summary: "The OpenAPI 3.1 document of this API" },
      },
      handler: async () => {
        document ??= openApiDocument(routesOf(app), info());
        return document;
      },
    },
  });
}
