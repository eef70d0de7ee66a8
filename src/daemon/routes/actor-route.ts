/**
 * The shape most requests on one session take: the session id of the path (`:sid`) checked,
 * the request's own input checked, then one call on the session's actor (loaded if need be),
 * whose result is the answer with the route's status and whose failures are problems.
 *
 * Boundary rule: wiring only; what the call does is the actor's, what the input is the route's.
 */
import type { FastifyRequest } from "fastify";
import { type Static, type TSchema, Type } from "typebox";
import type { Role } from "../../api/roles.js";
import type { SessionActor } from "../actor/session-actor.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import type { ResourceRoute } from "../http/resource.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";

/** The path parameters of a route on one session's actor. */
export const ActorPathParams = Type.Object({ sid: Type.String() });

/** One route on a session's actor. */
export interface ActorRoute<I, T> {
  summary: string;
  /** The path parameters; `sid` among them. */
  params: TSchema;
  body?: TSchema;
  /** The least role that may call it (src/api/roles.ts). */
  role: Role;
  /** The status of a success and the schema of its answer. */
  answer: readonly [status: number, schema: TSchema];
  /** A route whose call may start work (refused while the daemon drains). */
  startsWork?: boolean;
  /** What the call needs from the request, checked before the session is looked up (none if left out). */
  input?: (request: FastifyRequest) => I;
  act: (actor: SessionActor, input: I) => Promise<T> | T;
}

/** The fastify route of `route`, its calls going to the actors of `registry`. */
export function actorRoute<I, T>(registry: SessionRegistry, route: ActorRoute<I, T>): ResourceRoute {
  const [status, answerSchema] = route.answer;
  return {
    schema: {
      params: route.params,
      ...(route.body === undefined ? {} : { body: route.body }),
      response: { [status]: answerSchema },
    },
    config: {
      role: route.role,
      ...(route.startsWork === true ? { startsWork: true } : {}),
      doc: { summary: route.summary },
    },
    handler: async (request, reply) => {
      const { sid } = request.params as { sid: string };
      checkIdShape(sid, "session id");
      const input = route.input?.(request) as I;
      const answer = await answerWith(() => registry.withActor(sid, (actor) => route.act(actor, input)));
      return reply.code(status).send(answer);
    },
  };
}

/** A route on a session's actor whose input is its checked body (the path names the session only). */
export interface ActorBodyRoute<B extends TSchema, T> {
  summary: string;
  body: B;
  /** The least role that may call it (src/api/roles.ts). */
  role: Role;
  /** The status of a success and the schema of its answer. */
  answer: readonly [status: number, schema: TSchema];
  /** A route whose call may start work (refused while the daemon drains). */
  startsWork?: boolean;
  act: (actor: SessionActor, body: Static<B>) => Promise<T> | T;
}

/** `actorRoute` for a route on `/sessions/:sid/...` whose call takes the request's body. */
export function actorBodyRoute<B extends TSchema, T>(
  registry: SessionRegistry,
  route: ActorBodyRoute<B, T>,
): ResourceRoute {
  return actorRoute(registry, {
    ...route,
    params: ActorPathParams,
    input: (request) => request.body as Static<B>,
  });
}
