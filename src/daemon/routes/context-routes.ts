/**
 * The model's context of one session, changed on request:
 *
 * - `POST /sessions/{sid}/compact`: compact the session's context now. 202 once the compaction
 *   is planned and started (the summary is written in the background; `compaction_completed` or
 *   `compaction_failed` on the session's stream tells how it ended); 409 `session_busy` while a
 *   turn or another compaction runs (a compaction is not queued behind a turn: a turn compacts
 *   by itself when it needs to); 409 `nothing_to_compact` when only the turns a compaction keeps
 *   whole are there; 409 `budget_exhausted` when a budget refuses a model request now; 400
 *   `invalid_request` when no provider is configured.
 * - `POST /sessions/{sid}/repair` {from_position, to_position?}: the items of those log entries
 *   leave the model's context from the next request on (a `context_excluded` entry; the log and
 *   history pages keep them). The way out when a provider keeps refusing a session's requests
 *   because of something in its history. 200 with what was excluded; 409 `session_busy` while a
 *   turn or a compaction runs; 400 `invalid_request` for entries the session does not have or
 *   whose items are not in the context.
 *
 * Boundary rule: the routes only ask the actor; the actor decides (and plans a compaction).
 */
import {
  CompactAnswerSchema,
  RepairAnswerSchema,
  RepairBodySchema,
} from "../../api/schemas/session-snapshot.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { ActorPathParams, actorBodyRoute, actorRoute } from "./actor-route.js";
import type { RouteServices } from "./route-services.js";

/** Register the compact and repair routes. */
export function registerContextRoutes(app: HttpApp, services: RouteServices): void {
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
  registerResource(app, "/sessions/:sid/repair", {
    POST: actorBodyRoute(services.registry, {
      summary: "Leave log entries out of the model's context (the way out of a refused history)",
      role: "driver",
      body: RepairBodySchema,
      answer: [200, RepairAnswerSchema],
      act: (actor, body) => actor.repair(body.from_position, body.to_position),
    }),
  });
}
