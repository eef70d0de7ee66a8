/**
 * An input as a client sends it, checked the same wherever it comes in: the body of `PUT
 * /sessions/{sid}/inputs/{iid}` and a new session's first input (`input` of `PUT /sessions/{id}`).
 *
 * Boundary rule: the checks that need no session (reserved client ids, blank text), who sent it,
 * and the admission's trace span.
 */
import type { FastifyRequest } from "fastify";
import type { InputBody, InputIntent } from "../../api/inputs.js";
import { senderOf } from "../http/credential.js";
import { problem } from "../http/problem.js";
import type { InputSource } from "../storage/inputs-table.js";
import type { Tracing } from "../telemetry/tracing.js";
import { checkClientIdNotReserved } from "./reserved-client-id.js";

/** What `body` asks for; a reserved client id or a message without text is refused (400). */
export function checkedIntent(body: InputBody): InputIntent {
  checkClientIdNotReserved(body.client_id);
  if (body.kind === "continue") return { kind: "continue" };
  if (body.text.trim() === "") throw problem("message_empty", "a message input needs non-blank text");
  return { kind: "message", text: body.text };
}

/** Who sent an input: the name the client gave itself, its token's name, its address. */
export function inputSourceOf(request: FastifyRequest, body: InputBody): InputSource {
  const sender = senderOf(request.raw);
  return { clientId: body.client_id ?? null, sentBy: sender.principal, sentFrom: sender.address };
}

/**
 * Run the admission of input `inputId` of session `sessionId` (`admit`, answering `status`)
 * under its span, when the daemon exports traces: the span continues the request's
 * `traceparent` and ends with the status the request is answered with.
 */
export async function traceAdmission<T>(
  tracing: Tracing | undefined,
  request: FastifyRequest,
  ids: { sessionId: string; inputId: string; status: number },
  admit: () => Promise<T>,
): Promise<T> {
  const traceparent = request.headers.traceparent;
  const span = tracing?.admission(
    ids.sessionId,
    ids.inputId,
    typeof traceparent === "string" ? traceparent : undefined,
  );
  try {
    const answer = await admit();
    span?.end(ids.status);
    return answer;
  } catch (error) {
    span?.end(statusOf(error));
    throw error;
  }
}

/** The status an error is answered with (for the admission's span). */
function statusOf(error: unknown): number {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === "number" ? status : 500;
}
