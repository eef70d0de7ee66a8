/**
 * Where a fork starts: the source's log up to and including one history entry (a checkpoint),
 * copied entry by entry into the fork's own log, with every tool call left without its result
 * answered "not executed after branch checkpoint".
 *
 * Boundary rule: pure. It relies on the projection's rule that every item of a log entry is
 * exactly one history entry, in order, so a checkpoint id names one item of one log entry, and
 * the fork keeps that entry's items up to it. The copies keep the source's positions, times,
 * turn and input ids and continuations, so a fork pages, previews and reads like any session.
 */
import { collectState } from "../../log/collect-state.js";
import type { LogEntry, PositionedEntry, SessionOrigin } from "../../log/entries.js";
import { copiedForkEntries, snapshotForkEntries } from "../../log/fork-entries.js";
import { CheckpointUnknownError } from "../errors.js";
import { projectEntry, type ToolNames } from "../history/project-history.js";
import { closeOpenCalls } from "./open-tool-calls.js";

export interface ForkPlan {
  systemPrompt: string | null;
  /** The fork's whole log, first entry first: the copies, then the results closing open calls. */
  entries: LogEntry[];
  origin: SessionOrigin;
}

/** The log a fork at `checkpointId` of the source log starts with; `now` stamps the closing results. */
export function planFork(
  entries: readonly PositionedEntry[],
  sourceId: string,
  checkpointId: string,
  now: number,
): ForkPlan {
  const names: ToolNames = new Map();
  for (const placed of entries) {
    const k = projectEntry(placed, names).findIndex((entry) => entry.checkpoint_id === checkpointId);
    if (k < 0) continue;
    const cut = { position: placed.position, keepItems: k + 1 };
    // A log retention pruned has no start to copy: the fork starts from its replayed state.
    const copies =
      entries[0]!.position === 0
        ? copiedForkEntries(sourceId, entries, cut)
        : snapshotForkEntries(sourceId, entries, cut, now);
    const state = collectState(copies.map((entry) => ({ hash: "", prev_hash: null, entry })));
    const results = closeOpenCalls(state.history, "branch_checkpoint");
    if (results.length > 0) copies.push({ kind: "tool_results", ts: now, items: results });
    return {
      systemPrompt: state.system_prompt,
      entries: copies,
      origin: { session_id: sourceId, entry_hash: placed.hash, position: placed.position },
    };
  }
  throw new CheckpointUnknownError(sourceId, checkpointId);
}
