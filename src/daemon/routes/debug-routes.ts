/** Debug routes, registered only with SKEIN_INSPECT=1. */
import { Type } from "typebox";
import type { RestartAnswer } from "../../api/server.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";

/** `POST /debug/sessions/{id}/restart`: stop the session's actor as if it had crashed. */
export function registerDebugRoutes(app: HttpApp, services: RouteServices): void {
  registerResource(app, "/debug/sessions/:id/restart", {
    POST: {
      schema: { params: Type.Object({ id: Type.String() }) },
      handler: async (request) => {
        const { id } = request.params as { id: string };
        checkIdShape(id, "session id");
        return answerWith(async (): Promise<RestartAnswer> => {
          await services.registry.restart(id);
          return { result: "actor_stopped" };
        });
      },
    },
  });
}
