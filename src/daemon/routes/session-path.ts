/**
 * The session a route's path names (`/sessions/:id…`): its parameter schema, its id checked to
 * be a possible one, and, for routes that read storage without the session's actor, that the
 * session exists.
 *
 * Boundary rule: checks only; what the route does with the session is the route's.
 */
import { type Static, Type } from "typebox";
import { SessionNotFoundError } from "../../log/errors.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import { checkIdShape } from "./client-id.js";

/** The path parameters of a route on one session. */
export const SessionPathParams = Type.Object({ id: Type.String() });

/** The session id in the path, a lowercase UUIDv7 (a 400 problem otherwise). */
export function sessionIdOf(request: { params: unknown }): string {
  const { id } = request.params as Static<typeof SessionPathParams>;
  checkIdShape(id, "session id");
  return id;
}

/** Throws SessionNotFoundError unless session `id` exists. */
export async function requireSession(registry: SessionRegistry, id: string): Promise<void> {
  if (!(await registry.exists(id))) throw new SessionNotFoundError(id);
}
