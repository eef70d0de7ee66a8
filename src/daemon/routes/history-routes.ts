/** `GET /sessions/{id}/history`: pages of the durable history, read from storage. */
import { type Static, Type } from "typebox";
import { readHistoryPage } from "../history/history-page.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { SessionUnknownError } from "../session/session-registry.js";
import { getSession } from "../storage/sessions-table.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";

const HistoryQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    next: Type.Optional(Type.String({ maxLength: 2048 })),
    before: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);

/** Register the history route. A history read never loads the session's actor. */
export function registerHistoryRoutes(app: HttpApp, services: RouteServices): void {
  registerResource(app, "/sessions/:id/history", {
    GET: {
      schema: { params: Type.Object({ id: Type.String() }), querystring: HistoryQuery },
      handler: async (request) => {
        const { id } = request.params as { id: string };
        checkIdShape(id, "session id");
        const query = request.query as Static<typeof HistoryQuery>;
        return answerWith(async () => {
          if (getSession(services.db, id) === null) throw new SessionUnknownError(id);
          return readHistoryPage((sessionId) => services.registry.readLog(sessionId), {
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
}
