/**
 * `POST /gc`: apply config.json's retention policy now, or with `dry_run` only say what it would
 * remove and how many bytes that frees. 200 with the report; a daemon without a policy answers
 * a report with `policy: null` that removed nothing.
 *
 * Boundary rule: the route only asks retention (actor/session-retention.ts), which decides.
 */
import type { GcBody } from "../../api/retention.js";
import { GcBodySchema, GcReportSchema } from "../../api/schemas/retention.js";
import type { SessionRetention } from "../actor/session-retention.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { answerWith } from "./daemon-problem.js";

/** Register the gc route. */
export function registerRetentionRoutes(app: HttpApp, retention: SessionRetention): void {
  registerResource(app, "/gc", {
    POST: {
      schema: { body: GcBodySchema, response: { 200: GcReportSchema } },
      config: {
        role: "admin",
        startsWork: true,
        doc: {
          summary: "Apply the retention policy now (dry_run: only report what would be removed)",
          description:
            "Deletes sessions idle longer than `retention.deleteIdleDays` and prunes logs above `retention.aboveBytes` to their last `retention.keepEntries` entries; never touches a loaded, running or waiting session.",
        },
      },
      handler: async (request) => {
        const body = (request.body ?? {}) as GcBody;
        return answerWith(() => retention.run(body.dry_run === true));
      },
    },
  });
}
