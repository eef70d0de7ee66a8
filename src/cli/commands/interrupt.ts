/**
 * `skein interrupt ID`: stop the session's running turn and drop its queued inputs.
 *
 * Boundary rule: one snapshot read (for the run id and input order), one POST.
 */
import type { CliContext } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { withSession } from "../session-ref.js";

/** Interrupt a session. */
export async function interruptSession(context: CliContext, ref: string): Promise<ExitCode> {
  return withSession(context, ref, async (client, id) => {
    const snapshot = await client.getSession(id, 0);
    const out = context.terminal.out;
    if (snapshot.status.phase === "idle" && snapshot.pending_inputs.length === 0) {
      writeLine(out, `session ${id} is idle; nothing to interrupt`);
      return exitCodes.ok;
    }
    const answer = await client.interrupt(id, snapshot.status.run_id, snapshot.input_order);
    const cancelled = answer.cancelled_input_ids.length;
    const parts = [answer.state === "requested" ? `interrupted run ${answer.run_id}` : "no turn was running"];
    if (cancelled > 0) parts.push(`cancelled ${cancelled} queued input${cancelled === 1 ? "" : "s"}`);
    writeLine(out, `session ${id}: ${parts.join("; ")}`);
    return exitCodes.ok;
  });
}
