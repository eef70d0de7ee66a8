/**
 * `POST /sessions/{sid}/compact`: compact the session's context now. 202 once the compaction is
 * planned and started (the summary is written in the background; `compaction_completed` or
 * `compaction_failed` on the session's stream tells how it ended); 409 `session_busy` while a
 * turn or another compaction runs (a compaction is not queued behind a turn: a turn compacts by
 * itself when it needs to); 409 `nothing_to_compact` when only the turns a compaction keeps
 * whole are there; 400 `invalid_request` when no provider is configured.
 *
 * Boundary rule: the route only asks the actor; the actor decides and plans.
 */
import { CompactAnswerSchema } from "../../api/schemas/session-snapshot.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { ActorPathParams, actorRoute } from "./actor-route.js";
import type { RouteServices } from "./route-services.js";

/** Register the compact route. */
export function registerCompactRoutes(app: HttpApp, services: RouteServices): void {
  registerResource(app, "/sessions/:sid/compact", {
    POST: actorRoute(services.registry, {
      summary: "Compact the session's model context now (the summary is written in the background)",
      role: "driver",
      params: ActorPathParams,
      answer: [202, CompactAnswerSchema],
      startsWork: true,
      act: (actor) => actor.compact(),
    }),
  });
}
