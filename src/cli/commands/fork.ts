/**
 * `skein fork ID [--at ENTRY]`: a new session with the history of ID up to an entry (by default
 * the newest one a fork can start from).
 *
 * Boundary rule: one PUT with a fork body; the new id goes to stdout, the explanation to stderr.
 */
import type { DaemonClient } from "../../client/daemon-client.js";
import { uuidV7 } from "../../client/uuid-v7.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { withSession } from "../session-ref.js";

export interface ForkOptions {
  at?: string;
  name?: string;
}

/** Fork a session and print the new session's id. */
export async function forkSession(context: CliContext, ref: string, options: ForkOptions): Promise<ExitCode> {
  return withSession(context, ref, async (client, source) => {
    const checkpoint = options.at ?? (await latestCheckpoint(client, source));
    const snapshot = await client.forkSession(uuidV7(), {
      source_session_id: source,
      checkpoint_id: checkpoint,
      ...(options.name === undefined ? {} : { name: options.name }),
    });
    const { out, err } = context.terminal;
    writeLine(
      err,
      err.paint.dim(
        `forked session ${source} at entry ${checkpoint}; continue it with: skein chat --session ${snapshot.id.slice(0, 13)}`,
      ),
    );
    writeLine(out, snapshot.id);
    return exitCodes.ok;
  });
}

/** The newest checkpoint id of a session's history. */
export async function latestCheckpoint(client: DaemonClient, sessionId: string): Promise<string> {
  let page = await client.history(sessionId, { limit: 50 });
  for (;;) {
    for (let i = page.items.length - 1; i >= 0; i--) {
      const checkpoint = page.items[i]!.checkpoint_id;
      if (checkpoint !== null) return checkpoint;
    }
    if (page.older === null) break;
    page = await client.history(sessionId, { limit: 50, next: page.older });
  }
  throw new CliError(`session ${sessionId} has no history to fork from`, exitCodes.error);
}
