/** `GET /sessions/{id}/verify`: the session's chain, recorded head and signature checked now. */
import { Type } from "typebox";
import type { VerifyReport } from "../../api/verify-report.js";
import type { HeadSigner } from "../../log/head-signer.js";
import { SessionUnknownError } from "../errors.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { verifySession } from "../session/verify-report.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";

/** Register the verify route. A corrupt log is a 200 report with `status: "corrupt"`, not an error. */
export function registerVerifyRoutes(app: HttpApp, services: RouteServices, signer: HeadSigner): void {
  registerResource(app, "/sessions/:id/verify", {
    GET: {
      schema: { params: Type.Object({ id: Type.String() }) },
      handler: async (request) => {
        const { id } = request.params as { id: string };
        checkIdShape(id, "session id");
        return answerWith(async (): Promise<VerifyReport> => {
          if (!(await services.registry.exists(id))) throw new SessionUnknownError(id);
          return verifySession(
            id,
            (sessionId) => services.registry.readLog(sessionId),
            (sessionId) => services.registry.readHeadRecord(sessionId),
            signer,
          );
        });
      },
    },
  });
}
