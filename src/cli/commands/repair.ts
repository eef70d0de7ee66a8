/**
 * `skein repair ID --from POSITION [--to POSITION]`: leave the items of those log entries out
 * of the model's context from the next request on (the way out when a provider keeps refusing
 * something in a session's history); the entries stay in its history.
 *
 * Boundary rule: one POST; the daemon checks the range and answers what it left out.
 */
import type { CliContext } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { withSession } from "../session-ref.js";

/** Leave log entries `from`..`to` out of the session's later requests and say what that left out. */
export async function repairSession(
  context: CliContext,
  ref: string,
  options: { from: number; to?: number },
): Promise<ExitCode> {
  return withSession(context, ref, async (client, id) => {
    const answer = await client.repair(id, options.from, options.to);
    const range =
      answer.from_position === answer.to_position
        ? `entry ${answer.from_position}`
        : `entries ${answer.from_position}–${answer.to_position}`;
    const items = answer.excluded_items === 1 ? "1 item" : `${answer.excluded_items} items`;
    writeLine(
      context.terminal.out,
      `session ${id}: ${range} left out of the model's context from the next request on (${items}; the history keeps them)`,
    );
    return exitCodes.ok;
  });
}
