/**
 * `POST /sessions/{sid}/repair` {from_position, to_position?}: the items of those log entries
 * leave the model's context from the next request on (a `context_excluded` entry; the log and
 * history pages keep them). The way out when a provider keeps refusing a session's requests
 * because of something in its history. 200 with what was excluded; 409 `session_busy` while a
 * turn or a compaction runs; 400 `invalid_request` for entries the session does not have or
 * whose items are not in the context.
 *
 * Boundary rule: the route only asks the actor; the actor decides.
 */
import { RepairAnswerSchema, type RepairBody, RepairBodySchema } from "../../api/schemas/session-snapshot.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { ActorPathParams, actorRoute } from "./actor-route.js";
import type { RouteServices } from "./route-services.js";

/** Register the repair route. */
export function registerRepairRoutes(app: HttpApp, services: RouteServices): void {
  registerResource(app, "/sessions/:sid/repair", {
    POST: actorRoute(services.registry, {
      summary: "Leave log entries out of the model's context (the way out of a refused history)",
      role: "driver",
      params: ActorPathParams,
      body: RepairBodySchema,
      answer: [200, RepairAnswerSchema],
      input: (request) => request.body as RepairBody,
      act: (actor, body) => actor.repair(body.from_position, body.to_position),
    }),
  });
}
