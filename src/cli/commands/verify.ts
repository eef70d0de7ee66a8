/**
 * `skein verify [ID...]`: re-check sessions' logs now (every hash, the recorded head and its
 * signature) and print each signed head, which a user can keep elsewhere to prove later that
 * a log was not rewritten. Without ids, every session is checked.
 *
 * Boundary rule: GET /sessions/{id}/verify per session; the exit code says whether all verified.
 */
import type { VerifyReport } from "../../api/verify-report.js";
import { type CliContext, connect } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import type { Paint } from "../render/terminal.js";
import { writeLine } from "../render/terminal.js";
import { resolveSessionId } from "../session-ref.js";

export interface VerifyOptions {
  json?: boolean;
}

/** Verify sessions; exit 1 unless every log verifies with a head signed by a trusted key. */
export async function verifySessions(
  context: CliContext,
  refs: readonly string[],
  options: VerifyOptions,
): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const ids: string[] = [];
    if (refs.length === 0) ids.push(...(await client.listSessions()).map((session) => session.id));
    else for (const ref of refs) ids.push(await resolveSessionId(client, ref));
    const out = context.terminal.out;
    const reports: VerifyReport[] = [];
    for (const id of ids) {
      const report = await client.verifySession(id);
      reports.push(report);
      if (options.json !== true) writeLine(out, reportLine(report, out.paint));
    }
    if (options.json === true) writeLine(out, JSON.stringify(reports, null, 2));
    else if (reports.length === 0) writeLine(out, out.paint.dim("no sessions to verify"));
    else {
      const key = reports[0]!.signing_key;
      writeLine(out, out.paint.dim(`heads are signed with key ${key.key_id}; its public key:`));
      for (const line of key.public_key.trimEnd().split("\n")) writeLine(out, out.paint.dim(line));
    }
    // Verified means signed by a key the daemon trusts; a daemon that said otherwise is not believed.
    const trusted = (report: VerifyReport) =>
      report.status === "verified" && report.head?.signature_status === "valid";
    return reports.every(trusted) ? exitCodes.ok : exitCodes.error;
  } finally {
    client.close();
  }
}

/** One line per session: verdict, id, size, and the signed head (or what is wrong). */
function reportLine(report: VerifyReport, paint: Paint): string {
  if (report.status === "corrupt") {
    const problem = report.problem!;
    return `${paint.red("CORRUPT")}  ${report.session_id}  at position ${problem.position}: ${problem.reason}`;
  }
  const head = report.head;
  if (head === null)
    return `${paint.green("ok")}  ${report.session_id}  ${report.entries} entries  (no recorded head)`;
  const signature =
    head.signature_status === "valid"
      ? `signed by ${head.key_id}: ${head.signature}`
      : head.signature_status === "unsigned"
        ? paint.yellow("unsigned")
        : paint.yellow(`signature ${head.signature_status.replace("_", " ")} (key ${head.key_id})`);
  return `${paint.green("ok")}  ${report.session_id}  ${report.entries} entries  head ${head.position} ${head.hash}  ${signature}`;
}
