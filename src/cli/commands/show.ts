/**
 * `skein show ID`: a session's whole history (or its last entries), readable, paged.
 *
 * Boundary rule: reads through the history API (pages of up to 200 positions, oldest first);
 * it never loads more than it prints. Large parts come cut to their start with a note; with
 * `--full` their whole content is fetched through each part's ref.
 */
import type { HistoryEntry } from "../../api/history.js";
import type { CliContext } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { withFullContent } from "../full-content.js";
import { entryLines, sessionHeader } from "../render/history-listing.js";
import { page } from "../render/pager.js";
import { writeLine } from "../render/terminal.js";
import { withSession } from "../session-ref.js";

export interface ShowOptions {
  tail?: number;
  json?: boolean;
  pager?: boolean;
  hideThinking?: boolean;
  /** Fetch the whole content of parts the daemon sent truncated. */
  full?: boolean;
}

/** Print a session's history. */
export async function showSession(context: CliContext, ref: string, options: ShowOptions): Promise<ExitCode> {
  return withSession(context, ref, async (client, id) => {
    const snapshot = await client.getSession(id, 0);
    const entries: HistoryEntry[] = [];
    let earlier = false;
    if (options.tail !== undefined) {
      // Newest pages back until enough entries are in.
      let next: string | undefined;
      for (;;) {
        const pageAnswer = await client.history(id, { limit: 200, ...(next === undefined ? {} : { next }) });
        entries.unshift(...pageAnswer.items);
        if (entries.length >= options.tail || pageAnswer.older === null) {
          earlier = pageAnswer.older !== null || entries.length > options.tail;
          break;
        }
        next = pageAnswer.older;
      }
      entries.splice(0, Math.max(0, entries.length - options.tail));
    } else {
      let answer = await client.history(id, { limit: 200, after: 0 });
      entries.push(...answer.items);
      while (answer.newer !== null) {
        answer = await client.history(id, { limit: 200, next: answer.newer });
        entries.push(...answer.items);
      }
    }
    const shown = options.full === true ? await withFullContent(client, entries) : entries;
    const out = context.terminal.out;
    if (options.json === true) {
      writeLine(
        out,
        JSON.stringify({ session: { ...snapshot, history: undefined }, entries: shown }, null, 2),
      );
      return exitCodes.ok;
    }
    const lines = sessionHeader(snapshot, out.paint);
    lines.push("");
    if (earlier) lines.push(out.paint.dim("… earlier entries not shown (drop --tail to see everything)"));
    const calls = new Map<string, { name: string; args: unknown }>();
    let turn: string | null = null;
    for (const entry of shown) {
      // Each turn's run id, as `skein undo --turn` and `skein diff --turn` take it.
      if (entry.turn_id !== null && entry.turn_id !== turn)
        lines.push(out.paint.dim(`── turn ${entry.turn_id}`));
      turn = entry.turn_id ?? turn;
      lines.push(...entryLines(entry, out.paint, { showThinking: options.hideThinking !== true, calls }));
    }
    if (shown.length === 0) lines.push(out.paint.dim("(no history yet)"));
    await page(out, lines, options.pager === false ? { ...context.env, SKEIN_PAGER: "cat" } : context.env);
    return exitCodes.ok;
  });
}
