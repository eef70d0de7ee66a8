/**
 * `skein rm ID...`: delete sessions (every entry of their history).
 *
 * Boundary rule: DELETE per session; a running session is refused unless --force, which
 * interrupts it and waits for it to stop first.
 */
import { DaemonApiError } from "../../client/api-errors.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { resolveSessionId } from "../session-ref.js";
import { stopSession } from "../stop-session.js";

/** Delete sessions. */
export async function removeSessions(
  context: CliContext,
  refs: readonly string[],
  options: { force?: boolean },
): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const ids: string[] = [];
    for (const ref of refs) ids.push(await resolveSessionId(client, ref));
    for (const id of ids) {
      try {
        await client.deleteSession(id);
      } catch (error) {
        if (!(error instanceof DaemonApiError) || error.code !== "session_busy") throw error;
        if (options.force !== true) {
          throw new CliError(
            `session ${id} is running a turn`,
            exitCodes.error,
            `interrupt it first (skein interrupt ${id.slice(0, 13)}) or use skein rm --force`,
          );
        }
        await stopSession(client, id);
        await client.deleteSession(id);
      }
      writeLine(context.terminal.out, `deleted session ${id}`);
    }
    return exitCodes.ok;
  } finally {
    client.close();
  }
}
