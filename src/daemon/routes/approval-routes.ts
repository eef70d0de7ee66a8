/**
 * Approvals: `POST /sessions/{id}/approvals/{call_id}` answers a tool call that waits (once, from
 * any client: the same decision again is answered with the recorded one, another is a 409), and
 * `PUT /sessions/{id}/approval-policy` sets or clears the session's own policy and sets its
 * approval mode (one log entry).
 *
 * Boundary rule: validation only; the session actor decides and logs, in its mailbox.
 */
import { Type } from "typebox";
import type { ApprovalAnswerBody, ApprovalPolicyBody } from "../../api/approvals.js";
import {
  ApprovalAnswerBodySchema,
  ApprovalPolicyAnswerSchema,
  ApprovalPolicyBodySchema,
  ApprovalRecordSchema,
} from "../../api/schemas/approvals.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";

const AnswerParams = Type.Object({
  sid: Type.String(),
  callId: Type.String({ minLength: 1, maxLength: 512 }),
});
const SessionParams = Type.Object({ sid: Type.String() });

/** Register the approval routes. */
export function registerApprovalRoutes(app: HttpApp, services: RouteServices): void {
  const { registry } = services;

  registerResource(app, "/sessions/:sid/approvals/:callId", {
    POST: {
      schema: {
        params: AnswerParams,
        body: ApprovalAnswerBodySchema,
        response: { 200: ApprovalRecordSchema },
      },
      // An allow lets a tool run: not while the daemon drains.
      config: {
        startsWork: true,
        doc: { summary: "Answer a tool call that waits for approval (allow or deny, once)" },
      },
      handler: async (request) => {
        const { sid, callId } = request.params as { sid: string; callId: string };
        checkIdShape(sid, "session id");
        const body = request.body as ApprovalAnswerBody;
        return answerWith(() => registry.withActor(sid, (actor) => actor.answerApproval(callId, body)));
      },
    },
  });

  registerResource(app, "/sessions/:sid/approval-policy", {
    PUT: {
      schema: {
        params: SessionParams,
        body: ApprovalPolicyBodySchema,
        response: { 200: ApprovalPolicyAnswerSchema },
      },
      config: {
        doc: { summary: "Set or clear the session's own approval policy, or set its approval mode" },
      },
      handler: async (request) => {
        const { sid } = request.params as { sid: string };
        checkIdShape(sid, "session id");
        const body = request.body as ApprovalPolicyBody;
        return answerWith(() => registry.withActor(sid, (actor) => actor.setApprovalPolicy(body)));
      },
    },
  });
}
