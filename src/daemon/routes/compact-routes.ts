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
import { Type } from "typebox";
import { CompactAnswerSchema } from "../../api/schemas/session-snapshot.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";

const SessionParams = Type.Object({ sid: Type.String() });

/** Register the compact route. */
export function registerCompactRoutes(app: HttpApp, services: RouteServices): void {
  const { registry } = services;
  registerResource(app, "/sessions/:sid/compact", {
    POST: {
      schema: { params: SessionParams, response: { 202: CompactAnswerSchema } },
      config: {
        startsWork: true,
        doc: {
          summary: "Compact the session's model context now (the summary is written in the background)",
        },
      },
      handler: async (request, reply) => {
        const { sid } = request.params as { sid: string };
        checkIdShape(sid, "session id");
        const answer = await answerWith(() => registry.withActor(sid, (actor) => actor.compact()));
        return reply.code(202).send(answer);
      },
    },
  });
}
