/** `GET /sessions`: the listing, as JSON or as a stream of its changes. */
import { SessionListStreamFrameSchema } from "../../api/schemas/session-list-events.js";
import { ListQuerySchema, SessionListSchema } from "../../api/schemas/sessions.js";
import type { SessionSummary } from "../../api/session-snapshot.js";
import type { ListQuery, SessionList, SessionListQuery } from "../../api/sessions.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import { type HttpApp, wantsEventStream } from "../http/create-http-app.js";
import { type Credential, credentialOf } from "../http/credential.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { type SessionListFilter, sessionMatches } from "../storage/sessions-table.js";
import { serveSessionStream } from "../stream/sse-stream.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";
import { nextToken, sessionPageOf } from "./session-list-page.js";
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
          const page = sessionPageOf(query);
          return answerWith(async (): Promise<SessionList> => {
            if (bound !== null) return { items: await boundListing(registry, bound, filter), next: null };
            // One row more than the page: whether another page follows, without counting.
            const items = await registry.list(filter, { ...page, limit: page.limit + 1 });
            return { items: items.slice(0, page.limit), next: nextToken(items, page.limit) };
          });
        }
        if (query.limit !== undefined || query.next !== undefined)
          throw problem(
            "invalid_request",
            "limit and next page the JSON listing; a stream sends every session",
          );
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

/** What a token bound to one session lists: that session, when it exists and `filter` selects it. */
async function boundListing(
  registry: SessionRegistry,
  bound: string,
  filter: SessionListFilter,
): Promise<SessionSummary[]> {
  const summary = await registry.summaryOf(bound);
  if (summary === null) return [];
  return sessionMatches({ parentId: summary.parent_id }, filter) ? [summary] : [];
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
