/**
 * `skein approve SESSION CALL`, `skein deny SESSION CALL` and `skein approvals [SESSION]`: answer
 * a tool call that waits for approval from a script or another terminal, and list what waits.
 *
 * Boundary rule: one answer per command through `POST /sessions/{id}/approvals/{call_id}` (the
 * daemon takes the first answer; the same one again is fine, another is refused); a call id may
 * be given as a unique prefix of a waiting call's.
 */
import type { ApprovalAnswerBody, ApprovalDecision, PendingApproval } from "../../api/approvals.js";
import type { SessionSnapshot } from "../../api/session-snapshot.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { unknownOutcomeDecisions } from "../../model/unknown-outcome.js";
import { cliClientId, describeRecord } from "../approval-desk.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { approvalSummary } from "../render/approval-prompt.js";
import { relativeTime } from "../render/relative-time.js";
import { writeLine } from "../render/terminal.js";
import { resolveSessionId, uniquePrefixes, withSession } from "../session-ref.js";

export interface AnswerOptions {
  /** allow only: also allow matching calls for the rest of the session. */
  always?: boolean;
  /** Told to the model (a deny's reason; the reply to an `ask_user` question). */
  message?: string;
}

/** `skein resolve SESSION CALL retry|skip|done`: answer a call whose outcome a restart left unknown. */
export function resolveCall(
  context: CliContext,
  sessionRef: string,
  callRef: string,
  decision: string,
  options: Pick<AnswerOptions, "message">,
): Promise<ExitCode> {
  const chosen = unknownOutcomeDecisions.find((known) => known === decision);
  if (chosen === undefined) {
    throw new CliError(
      `"${decision}" is no answer to an unknown outcome: say retry, skip or done`,
      exitCodes.usage,
    );
  }
  return answerCall(context, chosen, sessionRef, callRef, options);
}

/** Answer one waiting call; prints the recorded decision. */
export async function answerCall(
  context: CliContext,
  decision: ApprovalDecision,
  sessionRef: string,
  callRef: string,
  options: AnswerOptions,
): Promise<ExitCode> {
  return withSession(context, sessionRef, async (client, sessionId) => {
    const snapshot = await client.getSession(sessionId, 0);
    const call = pickCall(snapshot, callRef);
    const body: ApprovalAnswerBody = {
      decision,
      client_id: cliClientId,
      ...(options.always === true ? { remember: true } : {}),
      ...(options.message === undefined ? {} : { message: options.message }),
    };
    const record = await client.answerApproval(sessionId, call.id, body);
    const what = call.request === null ? `call ${call.id}` : approvalSummary(call.request);
    writeLine(context.terminal.out, `${what}: ${describeRecord(record)}`);
    return exitCodes.ok;
  });
}

/** List the calls that wait, of one session or of every session that waits. */
export async function listApprovals(
  context: CliContext,
  sessionRef: string | undefined,
  options: { json?: boolean },
): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const { snapshots, known } = await waitingSnapshots(client, sessionRef);
    const out = context.terminal.out;
    const rows = snapshots.flatMap((snapshot) =>
      snapshot.pending_approvals.map((request) => ({ session: snapshot.id, request })),
    );
    if (options.json === true) {
      writeLine(
        out,
        JSON.stringify(
          rows.map((row) => ({ session_id: row.session, ...row.request })),
          null,
          2,
        ),
      );
      return exitCodes.ok;
    }
    if (rows.length === 0) {
      writeLine(out, out.paint.dim("no tool call waits for approval"));
      return exitCodes.ok;
    }
    // Unique among every session, not only the waiting ones, so a pasted prefix is not ambiguous.
    const prefixes = uniquePrefixes([...new Set([...known, ...snapshots.map((snapshot) => snapshot.id)])]);
    for (const { session, request } of rows) {
      const prefix = prefixes.get(session) ?? session;
      writeLine(
        out,
        `${out.paint.cyan(prefix)}  ${out.paint.bold(request.call_id)}  ${approvalSummary(request)}  ${out.paint.dim(relativeTime(request.requested_at))}`,
      );
    }
    writeLine(
      out,
      out.paint.dim("answer with `skein approve SESSION CALL` or `skein deny SESSION CALL -m why`"),
    );
    if (rows.some(({ request }) => request.kind === "unknown_outcome")) {
      writeLine(
        out,
        out.paint.dim(
          "an outcome unknown (cut by a restart): `skein resolve SESSION CALL retry|skip|done [-m TEXT]`",
        ),
      );
    }
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** The snapshots of the sessions that wait (or of the one named), and the ids of every session. */
async function waitingSnapshots(
  client: DaemonClient,
  sessionRef: string | undefined,
): Promise<{ snapshots: SessionSnapshot[]; known: string[] }> {
  const all = await client.listSessions();
  const known = all.map((session) => session.id);
  if (sessionRef !== undefined)
    return { snapshots: [await client.getSession(await resolveSessionId(client, sessionRef), 0)], known };
  const waiting = all.filter((session) => session.status.phase === "waiting");
  return { snapshots: await Promise.all(waiting.map((session) => client.getSession(session.id, 0))), known };
}

/** The call `ref` names: a waiting call's id or a unique prefix of one, else `ref` itself (it may have been answered). */
function pickCall(snapshot: SessionSnapshot, ref: string): { id: string; request: PendingApproval | null } {
  const waiting = snapshot.pending_approvals;
  const exact = waiting.find((request) => request.call_id === ref);
  if (exact !== undefined) return { id: exact.call_id, request: exact };
  const byPrefix = waiting.filter((request) => request.call_id.startsWith(ref));
  if (byPrefix.length === 1) return { id: byPrefix[0]!.call_id, request: byPrefix[0]! };
  if (byPrefix.length > 1) {
    throw new CliError(
      `call id prefix "${ref}" matches ${byPrefix.length} waiting calls: ${byPrefix.map((request) => request.call_id).join(", ")}`,
      exitCodes.usage,
    );
  }
  return { id: ref, request: null };
}
