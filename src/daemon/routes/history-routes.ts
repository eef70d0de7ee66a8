/**
 * `GET /sessions/{id}/history` (pages of the durable history) and
 * `GET /sessions/{id}/entries/{entry_id}/content` (one part of an entry, whole, in slices),
 * read from storage.
 */
import { type Static, Type } from "typebox";
import type { ContentQuery, ContentSlice, HistoryPage, HistoryQuery } from "../../api/history.js";
import {
  ContentQuerySchema,
  ContentSliceSchema,
  HistoryPageSchema,
  HistoryQuerySchema,
  maxContentSliceBytes,
} from "../../api/schemas/history.js";
import { readLoggedEntryContent } from "../history/entry-content.js";
import { readHistoryPage } from "../history/history-page.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";
import { requireSession, SessionPathParams, sessionIdOf } from "./session-path.js";

const ContentParams = Type.Object({ id: Type.String(), entry: Type.String({ maxLength: 128 }) });

/** Register the history and entry content routes. Neither loads the session's actor. */
export function registerHistoryRoutes(app: HttpApp, services: RouteServices): void {
  registerResource(app, "/sessions/:id/history", {
    GET: {
      schema: {
        params: SessionPathParams,
        querystring: HistoryQuerySchema,
        response: { 200: HistoryPageSchema },
      },
      config: { role: "viewer", doc: { summary: "A page of a session's history (never loads the session)" } },
      handler: async (request) => {
        const id = sessionIdOf(request);
        const query = request.query as HistoryQuery;
        return answerWith(async (): Promise<HistoryPage> => {
          await requireSession(services.registry, id);
          return readHistoryPage(await services.registry.historyLog(id), {
            sessionId: id,
            secret: services.historySecret,
            now: services.now(),
            ...(query.limit === undefined ? {} : { limit: query.limit }),
            ...(query.next === undefined ? {} : { next: query.next }),
            ...(query.before === undefined ? {} : { before: query.before }),
            ...(query.after === undefined ? {} : { after: query.after }),
          });
        });
      },
    },
  });

  registerResource(app, "/sessions/:id/entries/:entry/content", {
    GET: {
      schema: {
        params: ContentParams,
        querystring: ContentQuerySchema,
        response: { 200: ContentSliceSchema },
      },
      config: { role: "viewer", doc: { summary: "One slice of the whole content of a truncated part" } },
      handler: async (request) => {
        const id = sessionIdOf(request);
        const { entry } = request.params as Static<typeof ContentParams>;
        const query = request.query as ContentQuery;
        return answerWith(async (): Promise<ContentSlice> => {
          await requireSession(services.registry, id);
          return readLoggedEntryContent(await services.registry.historyLog(id), {
            sessionId: id,
            entryId: entry,
            part: query.part,
            offset: query.offset ?? 0,
            limit: query.limit ?? maxContentSliceBytes,
          });
        });
      },
    },
  });
}
