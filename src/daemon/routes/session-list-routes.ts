/** `GET /sessions`: the listing, as JSON or as a stream of its changes. */
import { SessionListStreamFrameSchema } from "../../api/schemas/session-list-events.js";
import { ListQuerySchema, SessionListSchema } from "../../api/schemas/sessions.js";
import type { ListQuery, SessionList, SessionListQuery } from "../../api/sessions.js";
import { type HttpApp, wantsEventStream } from "../http/create-http-app.js";
import { type Credential, credentialOf } from "../http/credential.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import type { SessionListFilter } from "../storage/sessions-table.js";
import { serveSessionStream } from "../stream/sse-stream.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";
import {
  jsonOrStreamAnswer,
  rejectReplayParameters,
  streamCursorOf,
  streamRouteConfig,
} from "./stream-query.js";

/** Register `GET /sessions`. */
export function registerSessionListRoutes(app: HttpApp, services: RouteServices): void {
  const { registry } = services;
  registerResource(app, "/sessions", {
    GET: {
      schema: {
        querystring: ListQuerySchema,
        response: jsonOrStreamAnswer(
          "the listing, or (Accept: text/event-stream) its stream",
          SessionListSchema,
          SessionListStreamFrameSchema,
        ),
      },
      config: {
        ...streamRouteConfig("List sessions (newest activity first), or stream the listing"),
        role: "viewer",
        boundTokens: "filtered",
      },
      handler: async (request, reply) => {
        const query = request.query as ListQuery;
        const filter = listFilter(query);
        // A token bound to one session sees that session's entry only.
        const bound = boundSessionOf(credentialOf(request.raw));
        if (!wantsEventStream(request)) {
          rejectReplayParameters(query);
          return answerWith(async (): Promise<SessionList> => {
            const items = await registry.list(filter);
            return { items: bound === null ? items : items.filter((item) => item.id === bound) };
          });
        }
        if (bound !== null)
          throw problem(
            "session_forbidden",
            "a token bound to one session cannot stream the listing; read it as JSON",
          );
        const after = streamCursorOf(query, request.headers["last-event-id"]);
        const opened = await answerWith(() => registry.openList(filter, after));
        reply.hijack();
        serveSessionStream(reply.raw, {
          feed: opened.feed,
          first: opened.first,
          ...services.streamOptions,
          onClose: () => opened.closed(),
        });
        return reply;
      },
    },
  });
}

/** The one session the request's token may reach, or null (every session). */
function boundSessionOf(credential: Credential): string | null {
  return credential.kind === "none" ? null : credential.principal.sessionId;
}

/** The listing a `GET /sessions` asks for: `scope` all (default) or top, or `parent_id`'s forks. */
function listFilter(query: SessionListQuery): SessionListFilter {
  if (query.parent_id !== undefined) {
    if (query.scope !== undefined) throw problem("invalid_request", "give scope or parent_id, not both");
    checkIdShape(query.parent_id, "parent_id");
    return { kind: "children", parentId: query.parent_id };
  }
  return { kind: query.scope ?? "all" };
}
