/** Debug routes, registered only with SKEIN_INSPECT=1. */

import { RestartAnswerSchema } from "../../api/schemas/server.js";
import type { RestartAnswer } from "../../api/server.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";
import { SessionPathParams, sessionIdOf } from "./session-path.js";

/** `POST /debug/sessions/{id}/restart`: stop the session's actor as if it had crashed. */
export function registerDebugRoutes(app: HttpApp, services: RouteServices): void {
  registerResource(app, "/debug/sessions/:id/restart", {
    POST: {
      schema: { params: SessionPathParams, response: { 200: RestartAnswerSchema } },
      config: {
        role: "admin",
        doc: { summary: "Stop a session's actor as if it had crashed (SKEIN_INSPECT=1 only)" },
      },
      handler: async (request) => {
        const id = sessionIdOf(request);
        return answerWith(async (): Promise<RestartAnswer> => {
          await services.registry.restart(id);
          return { result: "actor_stopped" };
        });
      },
    },
  });
}
