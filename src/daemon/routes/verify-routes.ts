/** `GET /sessions/{id}/verify`: the session's chain, recorded head and signature checked now. */

import { VerifyReportSchema } from "../../api/schemas/verify-report.js";
import type { VerifyReport } from "../../api/verify-report.js";
import type { HeadSigner } from "../../log/head-signer.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { verifySession } from "../session/verify-report.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";
import { requireSession, SessionPathParams, sessionIdOf } from "./session-path.js";

/** Register the verify route. A corrupt log is a 200 report with `status: "corrupt"`, not an error. */
export function registerVerifyRoutes(app: HttpApp, services: RouteServices, signer: HeadSigner): void {
  registerResource(app, "/sessions/:id/verify", {
    GET: {
      schema: { params: SessionPathParams, response: { 200: VerifyReportSchema } },
      config: {
        role: "viewer",
        doc: {
          summary: "Re-hash a session's whole log and check its recorded head and signature",
          description: "A corrupt log is a 200 report with `status: corrupt`, not an error.",
        },
      },
      handler: async (request) => {
        const id = sessionIdOf(request);
        return answerWith(async (): Promise<VerifyReport> => {
          await requireSession(services.registry, id);
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
