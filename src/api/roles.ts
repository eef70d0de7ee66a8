/**
 * Roles: what a named API token (or a browser login bound to one) may do. Each role includes the
 * ones before it: a viewer reads sessions, their streams and history; an approver also answers
 * approvals and questions; a driver also sends inputs, interrupts, forks, compacts and changes a
 * session's settings; an admin also changes the config, manages tokens and deletes.
 *
 * Boundary rule: the list and its order live here; every route declares the least role it needs
 * (src/daemon/http/route-config.ts) and the ingress hook compares (src/daemon/http/route-access.ts).
 */

/** Every role, least to most. */
export const roles = ["viewer", "approver", "driver", "admin"] as const;

/** A role a token holds or a route needs. */
export type Role = (typeof roles)[number];

/** The name of the daemon's own token (SKEIN_TOKEN, or the one in daemon.json): always admin. */
export const bootstrapTokenName = "bootstrap";

/** True when a holder of `held` may use a route that needs `needed`. */
export function roleAllows(held: Role, needed: Role): boolean {
  return roles.indexOf(held) >= roles.indexOf(needed);
}

/** True when `text` names a role. */
export function isRole(text: string): text is Role {
  return (roles as readonly string[]).includes(text);
}
