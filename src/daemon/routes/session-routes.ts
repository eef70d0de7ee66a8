/** `/sessions/:id`: create, read (or stream), change the settings of, and delete a session. */
import { SessionStreamFrameSchema } from "../../api/schemas/session-events.js";
import { SessionSettingsBodySchema, SessionSettingsSchema } from "../../api/schemas/session-settings.js";
import { SessionSnapshotSchema } from "../../api/schemas/session-snapshot.js";
import { DeleteAnswerSchema, SessionReadQuerySchema } from "../../api/schemas/sessions.js";
import type { SessionSettingsBody } from "../../api/session-settings.js";
import type { DeleteAnswer, SessionReadQuery } from "../../api/sessions.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import type { SessionActor } from "../actor/session-actor.js";
import { type HttpApp, wantsEventStream } from "../http/create-http-app.js";
import { type ResourceRoute, registerResource } from "../http/resource.js";
import { type FirstBatch, serveSessionStream } from "../stream/sse-stream.js";
import { explainUnknown } from "./creation-rejection.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";
import { createSessionRoute } from "./session-creation-route.js";
import { registerSessionListRoutes } from "./session-list-routes.js";
import { SessionPathParams, sessionIdOf } from "./session-path.js";
import {
  jsonOrStreamAnswer,
  rejectReplayParameters,
  streamCursorOf,
  streamRouteConfig,
} from "./stream-query.js";

/** Register the session routes: the listing and each session. */
export function registerSessionRoutes(app: HttpApp, services: RouteServices): void {
  registerSessionListRoutes(app, services);
  registerResource(app, "/sessions/:id", {
    PUT: createSessionRoute(services),
    GET: readSessionRoute(services),
    PATCH: changeSettingsRoute(services),
    DELETE: deleteSessionRoute(services),
  });
}

/** `act` on session `id`'s actor; a session unknown because its creation was refused says why. */
function withKnownActor<T>(
  services: RouteServices,
  id: string,
  act: (actor: SessionActor) => Promise<T> | T,
): Promise<T> {
  return answerWith(() =>
    explainUnknown(services.storage, id, services.now(), () => services.registry.withActor(id, act)),
  );
}

/** `GET /sessions/:id`: the snapshot, or (Accept: text/event-stream) the session's stream. */
function readSessionRoute(services: RouteServices): ResourceRoute {
  return {
    schema: {
      params: SessionPathParams,
      querystring: SessionReadQuerySchema,
      response: jsonOrStreamAnswer(
        "the snapshot, or (Accept: text/event-stream) the session's stream",
        SessionSnapshotSchema,
        SessionStreamFrameSchema,
      ),
    },
    config: { ...streamRouteConfig("A session's snapshot, or its event stream"), role: "viewer" },
    handler: async (request, reply) => {
      const id = sessionIdOf(request);
      const query = request.query as SessionReadQuery;
      if (!wantsEventStream(request)) {
        rejectReplayParameters(query);
        return withKnownActor(services, id, (actor) => actor.snapshot(query.tail));
      }
      const after = streamCursorOf(query, request.headers["last-event-id"]);
      const { actor, first } = await withKnownActor(services, id, async (actor) => ({
        actor,
        first: replayAtOnce(actor, after) ?? (await actor.openStream(after, query.tail)),
      }));
      reply.hijack();
      serveSessionStream(reply.raw, { feed: actor.feed, first, ...services.streamOptions });
      return reply;
    },
  };
}

/**
 * The first batch of an attach whose cursor the replay window holds, read from the feed at once:
 * any moment's feed is a whole prefix of the session's events and the connection's watcher
 * catches up from its end, so the attach never waits in the actor's mailbox behind a running
 * turn's commits (only a reset's snapshot must agree with its cursor: `openStream`). Null when
 * the attach needs a reset, or the actor stopped (`openStream` then finds its successor).
 */
function replayAtOnce(actor: SessionActor, after: StreamCursor | null): FirstBatch | null {
  if (actor.stopped) return null;
  const read = actor.feed.read(after);
  return read.kind === "events" ? { cursor: read.cursor, events: read.events } : null;
}

/** `PATCH /sessions/:id`: the session's provider, model or parameters from its next request on. */
function changeSettingsRoute(services: RouteServices): ResourceRoute {
  const { registry } = services;
  return {
    schema: {
      params: SessionPathParams,
      body: SessionSettingsBodySchema,
      response: { 200: SessionSettingsSchema },
    },
    config: {
      role: "driver",
      doc: {
        summary: "Change a session's provider profile, model or model parameters from its next request on",
      },
    },
    handler: async (request) => {
      const id = sessionIdOf(request);
      const body = request.body as SessionSettingsBody;
      return answerWith(() => registry.withActor(id, (actor) => actor.changeSettings(body)));
    },
  };
}

/** `DELETE /sessions/:id`: the session and its whole history. */
function deleteSessionRoute(services: RouteServices): ResourceRoute {
  const { registry } = services;
  return {
    schema: { params: SessionPathParams, response: { 200: DeleteAnswerSchema } },
    config: {
      role: "admin",
      doc: { summary: "Delete a session and its whole history (409 while a turn runs)" },
    },
    handler: async (request) => {
      const id = sessionIdOf(request);
      return answerWith(async (): Promise<DeleteAnswer> => {
        await registry.withActor(id, (actor) => actor.delete());
        registry.forget(id);
        return { id, deleted: true };
      });
    },
  };
}
