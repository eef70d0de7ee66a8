/**
 * What a turn a crash cut short had used: a live turn stores its usage in the session's row
 * with its end (one write per turn), so a turn that never ended left the requests it had made out
 * of the row's totals, although each committed answer records its request's usage on its
 * `assistant_items` entry (and the budgets counted it there). Recovery adds these to the row.
 *
 * Boundary rule: reads the log only (the newest entries, back to the turn's start); the caller
 * writes the result with the turn's recovered end.
 */
import type { LogEntry } from "../../log/entries.js";
import { addUsage, type Usage } from "../../model/usage.js";
import type { HistoryLog } from "../history/history-log.js";

/** Entries read at a time, newest first, while looking for the turn's start. */
const pageSize = 64;

/** Whether a walk back from the log's end has left turn `turnId` at `entry` (an older turn's). */
function beforeTurn(entry: LogEntry, turnId: string): boolean {
  if (entry.kind === "turn_end" || entry.kind === "run_outcome" || entry.kind === "session_start")
    return true;
  const owner = "turn_id" in entry ? entry.turn_id : undefined;
  return owner !== undefined && owner !== turnId;
}

/**
 * The usage the committed answers of turn `turnId` record, `entries` given newest first and
 * ending where the walk stops (`done`: an entry of an older turn was met).
 */
function answeredUsage(entries: readonly LogEntry[], turnId: string): { usage: Usage; done: boolean } {
  let usage: Usage = {};
  for (const entry of entries) {
    if (beforeTurn(entry, turnId)) return { usage, done: true };
    if (entry.kind !== "assistant_items" || entry.turn_id !== turnId || entry.usage === undefined) continue;
    usage = addUsage(usage, {
      input_tokens: entry.usage.input_tokens,
      output_tokens: entry.usage.output_tokens,
      cache_read_tokens: entry.usage.cache_read_tokens,
      cache_write_tokens: entry.usage.cache_write_tokens,
    });
  }
  return { usage, done: false };
}

/**
 * The usage of the cut turn `turnId`, the session's last: its answers' records, read back from
 * the log's end to the turn's start (the last turn's entries are the log's last; a pruned log
 * reads from its cut).
 */
export async function cutTurnUsage(log: HistoryLog, turnId: string): Promise<Usage> {
  let usage: Usage = {};
  for (let to = log.head; to >= 0; to -= pageSize) {
    const page = await log.read(Math.max(0, to - pageSize + 1), to);
    const found = answeredUsage(page.map((stored) => stored.entry).reverse(), turnId);
    usage = addUsage(usage, found.usage);
    if (found.done || page.length === 0) break;
  }
  return usage;
}
