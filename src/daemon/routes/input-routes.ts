/**
 * Inputs: `PUT`/`GET /sessions/{sid}/inputs/{iid}` (durable, idempotent prompts and their
 * receipts), `POST .../inputs/{iid}/cancel` and `POST /sessions/{sid}/interrupt`.
 *
 * Boundary rule: an input is stored before the 202 is sent; everything after (the turn) is the
 * session actor's business.
 */

import { type Static, type TSchema, Type } from "typebox";
import type { InputBody } from "../../api/inputs.js";
import type { Role } from "../../api/roles.js";
import {
  CancelAnswerSchema,
  InputBodySchema,
  InputReceiptSchema,
  InterruptAnswerSchema,
  InterruptBodySchema,
} from "../../api/schemas/inputs.js";
import type { SessionActor } from "../actor/session-actor.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import type { HttpApp } from "../http/create-http-app.js";
import { type ResourceRoute, registerResource } from "../http/resource.js";
import { inputBodyLimit } from "../http/route-config.js";
import { actorBodyRoute, actorRoute } from "./actor-route.js";
import { checkIdShape, checkNewId } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import { checkedIntent, inputSourceOf, traceAdmission } from "./input-body.js";
import type { RouteServices } from "./route-services.js";

const InputParams = Type.Object({ sid: Type.String(), iid: Type.String() });

/** The input id of an input's path, checked to be a possible one. */
function inputIdOf(request: { params: unknown }): string {
  const { iid } = request.params as Static<typeof InputParams>;
  checkIdShape(iid, "input id");
  return iid;
}
/** A route on one input of a session: its path's ids checked, then one call with the input id. */
function inputRoute<T>(
  registry: SessionRegistry,
  summary: string,
  role: Role,
  answer: readonly [status: number, schema: TSchema],
  act: (actor: SessionActor, iid: string) => Promise<T> | T,
): ResourceRoute {
  return actorRoute(registry, { summary, role, params: InputParams, answer, input: inputIdOf, act });
}

/** Register the input, cancel and interrupt routes. */
export function registerInputRoutes(app: HttpApp, services: RouteServices): void {
  const { registry } = services;

  registerResource(app, "/sessions/:sid/inputs/:iid", {
    PUT: {
      schema: { params: InputParams, body: InputBodySchema, response: { 202: InputReceiptSchema } },
      bodyLimit: inputBodyLimit,
      config: {
        role: "driver",
        startsWork: true,
        doc: {
          summary: "Submit an input (durable and idempotent: stored before the 202)",
          description: "The same id and intent again answers the same receipt; another intent is 409.",
        },
      },
      handler: async (request, reply) => {
        const { sid, iid } = request.params as { sid: string; iid: string };
        checkIdShape(sid, "session id");
        checkNewId(iid, "input id", services.now());
        const body = request.body as InputBody;
        const intent = checkedIntent(body);
        const ids = { sessionId: sid, inputId: iid, status: 202 };
        const receipt = await traceAdmission(services.tracing, request, ids, () =>
          answerWith(async () =>
            registry.withActor(sid, (actor) => actor.submit(iid, intent, inputSourceOf(request, body))),
          ),
        );
        return reply.code(202).send(receipt);
      },
    },
    GET: inputRoute(registry, "An input's receipt", "viewer", [200, InputReceiptSchema], (actor, iid) =>
      actor.receipt(iid),
    ),
  });

  registerResource(app, "/sessions/:sid/inputs/:iid/cancel", {
    POST: inputRoute(
      registry,
      "Cancel a queued input (or interrupt the turn that delivers it alone)",
      "driver",
      [200, CancelAnswerSchema],
      (actor, iid) => actor.cancelInput(iid),
    ),
  });

  registerResource(app, "/sessions/:sid/interrupt", {
    POST: actorBodyRoute(registry, {
      summary: "Stop the running turn (when `run_id` is its id) and cancel queued inputs",
      role: "driver",
      body: InterruptBodySchema,
      answer: [200, InterruptAnswerSchema],
      act: (actor, body) => actor.interrupt(body.run_id, body.through_input_order),
    }),
  });
}
