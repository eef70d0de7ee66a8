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
import { Type } from "typebox";
import { RepairAnswerSchema, type RepairBody, RepairBodySchema } from "../../api/schemas/session-snapshot.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";

const SessionParams = Type.Object({ sid: Type.String() });

/** Register the repair route. */
export function registerRepairRoutes(app: HttpApp, services: RouteServices): void {
  const { registry } = services;
  registerResource(app, "/sessions/:sid/repair", {
    POST: {
      schema: { params: SessionParams, body: RepairBodySchema, response: { 200: RepairAnswerSchema } },
      config: {
        doc: { summary: "Leave log entries out of the model's context (the way out of a refused history)" },
      },
      handler: async (request, reply) => {
        const { sid } = request.params as { sid: string };
        checkIdShape(sid, "session id");
        const body = request.body as RepairBody;
        const answer = await answerWith(() =>
          registry.withActor(sid, (actor) => actor.repair(body.from_position, body.to_position)),
        );
        return reply.code(200).send(answer);
      },
    },
  });
}
