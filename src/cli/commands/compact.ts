/**
 * `skein compact ID`: compact a session's context now and wait until it is done.
 *
 * Boundary rule: one POST, then snapshot reads until the compaction has ended.
 */
import type { SessionContext } from "../../api/session-snapshot.js";
import type { DaemonClient } from "../../client/index.js";
import type { CliContext } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { withSession } from "../session-ref.js";

/** Compact a session's context and report the token counts. */
export async function compactSession(context: CliContext, ref: string): Promise<ExitCode> {
  return withSession(context, ref, async (client, id) => {
    const before = (await client.getSession(id, 0)).context;
    const started = await client.compact(id);
    const after = await waitForEnd(client, id, before?.last_compaction?.position ?? null);
    const out = context.terminal.out;
    if (
      after?.last_compaction_error != null ||
      after?.last_compaction?.position === before?.last_compaction?.position
    ) {
      writeLine(
        context.terminal.err,
        `session ${id}: compaction failed: ${after?.last_compaction_error ?? "unknown"}`,
      );
      return exitCodes.error;
    }
    const done = after?.last_compaction;
    writeLine(
      out,
      `session ${id}: context compacted from about ${started.before_tokens} to ${done?.after_tokens ?? "?"} tokens (${percent(after)})`,
    );
    return exitCodes.ok;
  });
}

async function waitForEnd(
  client: DaemonClient,
  id: string,
  previous: number | null,
): Promise<SessionContext | null> {
  for (;;) {
    const now = (await client.getSession(id, 0)).context;
    if (now === null) return null;
    if (!now.compacting && (now.last_compaction?.position !== previous || now.last_compaction_error !== null))
      return now;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function percent(context: SessionContext | null): string {
  return context === null
    ? "window unknown"
    : `${Math.round(context.fill * 100)}% of ${context.context_window}`;
}
