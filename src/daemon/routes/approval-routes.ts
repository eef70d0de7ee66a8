/**
 * Approvals: `POST /sessions/{id}/approvals/{call_id}` answers a tool call that waits (once, from
 * any client: the same decision again is answered with the recorded one, another is a 409), and
 * `PUT /sessions/{id}/approval-policy` sets or clears the session's own policy and sets its
 * approval mode (one log entry).
 *
 * Boundary rule: validation only; the session actor decides and logs, in its mailbox.
 */
import { type Static, Type } from "typebox";
import type { ApprovalAnswerBody } from "../../api/approvals.js";
import {
  ApprovalAnswerBodySchema,
  ApprovalPolicyAnswerSchema,
  ApprovalPolicyBodySchema,
  ApprovalRecordSchema,
} from "../../api/schemas/approvals.js";
import type { HttpApp } from "../http/create-http-app.js";
import { senderOf } from "../http/credential.js";
import { registerResource } from "../http/resource.js";
import { actorBodyRoute, actorRoute } from "./actor-route.js";
import { checkClientIdNotReserved } from "./reserved-client-id.js";
import type { RouteServices } from "./route-services.js";

const AnswerParams = Type.Object({
  sid: Type.String(),
  callId: Type.String({ minLength: 1, maxLength: 512 }),
});

/** Register the approval routes. */
export function registerApprovalRoutes(app: HttpApp, services: RouteServices): void {
  const { registry } = services;

  registerResource(app, "/sessions/:sid/approvals/:callId", {
    POST: actorRoute(registry, {
      summary: "Answer a tool call that waits for approval (allow or deny, once)",
      role: "approver",
      params: AnswerParams,
      body: ApprovalAnswerBodySchema,
      answer: [200, ApprovalRecordSchema],
      // An allow lets a tool run: not while the daemon drains.
      startsWork: true,
      input: (request) => {
        const body = request.body as ApprovalAnswerBody;
        checkClientIdNotReserved(body.client_id);
        return {
          callId: (request.params as Static<typeof AnswerParams>).callId,
          body,
          sender: senderOf(request.raw),
        };
      },
      act: (actor, { callId, body, sender }) => actor.answerApproval(callId, body, sender),
    }),
  });

  registerResource(app, "/sessions/:sid/approval-policy", {
    PUT: actorBodyRoute(registry, {
      summary: "Set or clear the session's own approval policy, or set its approval mode",
      role: "driver",
      body: ApprovalPolicyBodySchema,
      answer: [200, ApprovalPolicyAnswerSchema],
      act: (actor, body) => actor.setApprovalPolicy(body),
    }),
  });
}
