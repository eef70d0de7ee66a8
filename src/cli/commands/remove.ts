/**
 * `skein rm ID...`: delete sessions (every entry of their history).
 *
 * Boundary rule: DELETE per session; a running session is refused unless --force, which
 * interrupts it and waits for it to stop first.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { DaemonApiError } from "../../client/api-errors.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { resolveSessionId } from "../session-ref.js";

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

/** Interrupt a session and wait (up to 30 s) until it is idle. */
async function stopSession(client: DaemonClient, id: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let snapshot = await client.getSession(id, 0);
  await client.interrupt(id, snapshot.status.run_id, snapshot.input_order);
  while (snapshot.status.phase !== "idle") {
    if (Date.now() > deadline) throw new CliError(`session ${id} did not stop within 30 s`);
    await sleep(50);
    snapshot = await client.getSession(id, 0);
  }
}
