/**
 * Whether the token behind a request may use its route: the route's declared role (admin when
 * it declares none) against the token's, and for a token bound to one session, whether the
 * route is about that session.
 *
 * Boundary rule: a pure decision over the route's config, its path parameters and the recorded
 * credential; the ingress hook calls it once the route is known (after 404 and 405).
 */
import type { FastifyRequest } from "fastify";
import { type Role, roleAllows } from "../../api/roles.js";
import type { Credential } from "./credential.js";
import { problem } from "./problem.js";
import "./route-config.js";

/** The role a route needs: what it declares, else admin (a route nobody thought about stays closed). */
export function requiredRole(config: { role?: Role }): Role {
  return config.role ?? "admin";
}

/** The name of the path parameter holding the session id of a route under `/sessions/{id}`, or null. */
function sessionParamOf(url: string): string | null {
  return /^\/sessions\/:([A-Za-z]\w*)(\/|$)/.exec(url)?.[1] ?? null;
}

/**
 * Throws 403 role_forbidden or session_forbidden when `credential` may not use the request's
 * route (`route`: the request's `routeOptions`, read once by the caller).
 */
export function checkRouteAccess(
  request: FastifyRequest,
  route: FastifyRequest["routeOptions"],
  credential: Credential,
): void {
  const config = route.config;
  // A public route holds no data (the page shell, its assets): whoever may reach the daemon may load it.
  if (credential.kind === "none" || config.public === true) return;
  const { principal } = credential;
  const needed = requiredRole(config);
  if (!roleAllows(principal.role, needed)) {
    throw problem(
      "role_forbidden",
      `${request.method} ${route.url ?? ""} needs the ${needed} role; the token ${JSON.stringify(principal.name)} has ${principal.role}`,
    );
  }
  if (principal.sessionId === null) return;
  const param = sessionParamOf(route.url ?? "");
  if (param !== null) {
    const sessionId = (request.params as Record<string, string | undefined>)[param];
    if (sessionId === principal.sessionId) return;
  } else if (config.boundTokens !== undefined) return;
  throw problem(
    "session_forbidden",
    `the token ${JSON.stringify(principal.name)} may reach session ${principal.sessionId} only`,
  );
}
