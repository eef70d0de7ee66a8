/**
 * Resources: one path, several methods, and 405 (with `Allow`) for the methods it lacks.
 *
 * Boundary rule: route registration only. A path registered through `registerResource` (or
 * whose methods are declared with `registerMethodNotAllowed`) answers every other method with
 * 405 method_not_allowed, decided after auth and Host but before the body is read; a path that
 * is not registered at all is a 404.
 */
import type { FastifyRequest, RouteOptions } from "fastify";
import type { HttpApp } from "./create-http-app.js";
import { problem } from "./problem.js";
import "./route-config.js";

/** Methods a resource may implement. */
export type ResourceMethod = "GET" | "PUT" | "POST" | "DELETE" | "PATCH";

/** One method's route, without method and url (they come from registerResource). */
export type ResourceRoute = Omit<RouteOptions, "method" | "url">;

const answeredMethods = ["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"] as const;

/** Register `handlers` on `url` and 405 placeholders for every other method. */
export function registerResource(
  app: HttpApp,
  url: string,
  handlers: Partial<Record<ResourceMethod, ResourceRoute>>,
): void {
  const methods: ResourceMethod[] = [];
  for (const [method, route] of Object.entries(handlers) as Array<
    [ResourceMethod, ResourceRoute | undefined]
  >) {
    if (route === undefined) continue;
    methods.push(method);
    app.route({ ...route, method, url } as RouteOptions);
  }
  registerMethodNotAllowed(app, url, methods);
}

/**
 * Register one 405 placeholder route on `url` for every method not in `allowed`: one route of
 * several methods, not one per method (each route Fastify sets up costs the daemon's start
 * about 0.1 ms, and the daemon has some 40 resources).
 */
function registerMethodNotAllowed(app: HttpApp, url: string, allowed: readonly ResourceMethod[]): void {
  if (allowed.length === 0) throw new Error(`resource ${url} must allow at least one method`);
  const allow = [...new Set(allowed)].sort().join(", ");
  const refused = answeredMethods.filter((method) => !(allowed as readonly string[]).includes(method));
  if (refused.length === 0) return;
  const refuse = (request: FastifyRequest): never => {
    throw problem("method_not_allowed", `${request.method} is not allowed on ${url}; allowed: ${allow}`, {
      headers: { allow },
    });
  };
  app.route({
    method: refused,
    url,
    config: { allow },
    // onRequest, so a 405 wins over anything the body could cause (415, 413, 400).
    onRequest: async (request) => refuse(request),
    handler: async (request) => refuse(request),
  });
}
