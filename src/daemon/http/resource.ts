/**
 * Resources: one path, several methods, and 405 (with `Allow`) for the methods it lacks.
 *
 * Boundary rule: route registration only. A path registered through `registerResource` (or
 * whose methods are declared with `registerMethodNotAllowed`) answers every other method with
 * 405 method_not_allowed, decided after auth and Host but before the body is read; a path that
 * is not registered at all is a 404.
 */
import type { RouteOptions } from "fastify";
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

/** Register 405 placeholders on `url` for every method not in `allowed` (routes added elsewhere). */
function registerMethodNotAllowed(app: HttpApp, url: string, allowed: readonly ResourceMethod[]): void {
  if (allowed.length === 0) throw new Error(`resource ${url} must allow at least one method`);
  const allow = [...new Set(allowed)].sort().join(", ");
  for (const method of answeredMethods) {
    if ((allowed as readonly string[]).includes(method)) continue;
    const refuse = (): never => {
      throw problem("method_not_allowed", `${method} is not allowed on ${url}; allowed: ${allow}`, {
        headers: { allow },
      });
    };
    app.route({
      method,
      url,
      config: { allow },
      // onRequest, so a 405 wins over anything the body could cause (415, 413, 400).
      onRequest: async () => refuse(),
      handler: async () => refuse(),
    });
  }
}
